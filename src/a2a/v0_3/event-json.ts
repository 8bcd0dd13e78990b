// Wire events as JSON text, the same text JSON.stringify gives, with output chunks escaped the fast way
// (src/a2a/text-json.ts), as bytes when made from the command's own bytes.
import { type JsonText, jsonString, spliceText } from "../text-json.js";
import type { WireEvent, WireTextPart } from "./codec.js";

const field = (name: string, value: unknown) => (value === undefined ? "" : `,"${name}":${JSON.stringify(value)}`);

function partJson(part: WireTextPart): string {
  return `{"kind":"text","text":${jsonString(part.text)}${field("metadata", part.metadata)}}`;
}

/**
 * `head + JSON.stringify(event) + tail`: the same text, key for key (test/unit/event-json.test.ts compares them).
 * The frame is written in one piece with the event, so that an event made as bytes is not copied again to frame it.
 */
export function eventJson(event: WireEvent, head = "", tail = ""): JsonText {
  if (event.kind !== "artifact-update") return `${head}${JSON.stringify(event)}${tail}`;
  const { artifact } = event;
  const ids = `"taskId":${JSON.stringify(event.taskId)},"contextId":${JSON.stringify(event.contextId)}`;
  const before = `${head}{"kind":"artifact-update",${ids},"artifact":{"artifactId":${JSON.stringify(artifact.artifactId)}${field("name", artifact.name)},"parts":[`;
  const after = `]${field("metadata", artifact.metadata)}},"append":${event.append},"lastChunk":${event.lastChunk}}${tail}`;
  const [only, ...more] = artifact.parts;
  if (only === undefined || more.length > 0) return `${before}${artifact.parts.map(partJson).join(",")}${after}`;
  return spliceText(`${before}{"kind":"text","text":`, only, `${field("metadata", only.metadata)}}${after}`);
}

/** The `tasks/event` notification that carries `event`, as one line of JSON (without the newline). */
export function notificationJson(event: WireEvent, tail = ""): JsonText {
  return eventJson(event, `{"jsonrpc":"2.0","method":"tasks/event","params":`, `}${tail}`);
}
