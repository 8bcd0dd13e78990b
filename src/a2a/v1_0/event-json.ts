// 1.0 StreamResponses as JSON text, the same text JSON.stringify gives, with output chunks escaped the fast way
// (src/a2a/text-json.ts), as bytes when made from the command's own bytes.
import { type JsonText, jsonString, spliceText } from "../text-json.js";
import type { StreamResponse1 } from "./codec.js";

/** `head + JSON.stringify(response) + tail`: the same text, key for key (test/unit/event-json.test.ts compares them). */
export function streamResponseJson(response: StreamResponse1, head = "", tail = ""): JsonText {
  if (!("artifactUpdate" in response)) return `${head}${JSON.stringify(response)}${tail}`;
  const update = response.artifactUpdate;
  const { artifact } = update;
  const ids = `"taskId":${JSON.stringify(update.taskId)},"contextId":${JSON.stringify(update.contextId)}`;
  const names = `"artifactId":${JSON.stringify(artifact.artifactId)},"name":${JSON.stringify(artifact.name)}`;
  const before = `${head}{"artifactUpdate":{${ids},"artifact":{${names},"parts":[`;
  const meta = artifact.metadata === undefined ? "" : `,"metadata":${JSON.stringify(artifact.metadata)}`;
  const after = `]${meta}},"append":${update.append},"lastChunk":${update.lastChunk}}}${tail}`;
  const [only, ...more] = artifact.parts;
  const partTail = (part: { metadata: unknown }) => `,"metadata":${JSON.stringify(part.metadata)}}`;
  if (only === undefined || more.length > 0) {
    const parts = artifact.parts.map((part) => `{"text":${jsonString(part.text)}${partTail(part)}`);
    return `${before}${parts.join(",")}${after}`;
  }
  return spliceText(`${before}{"text":`, only, `${partTail(only)}${after}`);
}
