// 1.0 StreamResponses as JSON text, the same text JSON.stringify gives, with output chunks escaped the fast way
// (src/a2a/json-string.ts says why).
import { jsonString } from "../json-string.js";
import type { StreamResponse1 } from "./codec.js";

/** `JSON.stringify(response)`: the same text, key for key (test/unit/event-json.test.ts compares them). */
export function streamResponseJson(response: StreamResponse1): string {
  if (!("artifactUpdate" in response)) return JSON.stringify(response);
  const update = response.artifactUpdate;
  const { artifact } = update;
  const parts = artifact.parts
    .map((part) => `{"text":${jsonString(part.text)},"metadata":${JSON.stringify(part.metadata)}}`)
    .join(",");
  const ids = `"taskId":${JSON.stringify(update.taskId)},"contextId":${JSON.stringify(update.contextId)}`;
  const head = `"artifactId":${JSON.stringify(artifact.artifactId)},"name":${JSON.stringify(artifact.name)}`;
  const meta = artifact.metadata === undefined ? "" : `,"metadata":${JSON.stringify(artifact.metadata)}`;
  return `{"artifactUpdate":{${ids},"artifact":{${head},"parts":[${parts}]${meta}},"append":${update.append},"lastChunk":${update.lastChunk}}}`;
}
