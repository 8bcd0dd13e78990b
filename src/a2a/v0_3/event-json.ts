// Wire events as JSON text, the same text JSON.stringify gives, with output chunks escaped the fast way
// (src/a2a/json-string.ts).
import { jsonString } from "../json-string.js";
import type { WireArtifact, WireEvent, WireTextPart } from "./codec.js";

const field = (name: string, value: unknown) => (value === undefined ? "" : `,"${name}":${JSON.stringify(value)}`);

function partJson(part: WireTextPart): string {
  return `{"kind":"text","text":${jsonString(part.text)}${field("metadata", part.metadata)}}`;
}

function artifactJson(artifact: WireArtifact): string {
  const parts = artifact.parts.map(partJson).join(",");
  const head = `{"artifactId":${JSON.stringify(artifact.artifactId)}${field("name", artifact.name)}`;
  return `${head},"parts":[${parts}]${field("metadata", artifact.metadata)}}`;
}

/** `JSON.stringify(event)`: the same text, key for key (test/unit/event-json.test.ts compares them). */
export function eventJson(event: WireEvent): string {
  if (event.kind !== "artifact-update") return JSON.stringify(event);
  const ids = `"taskId":${JSON.stringify(event.taskId)},"contextId":${JSON.stringify(event.contextId)}`;
  const artifact = artifactJson(event.artifact);
  return `{"kind":"artifact-update",${ids},"artifact":${artifact},"append":${event.append},"lastChunk":${event.lastChunk}}`;
}

/** The `tasks/event` notification that carries `event`, as one line of JSON (without the newline). */
export function notificationJson(event: WireEvent): string {
  return `{"jsonrpc":"2.0","method":"tasks/event","params":${eventJson(event)}}`;
}
