// A send request whose params repeat a key is refused (-32602, duplicate_key at its pointer): JSON.parse keeps
// the last of two equal keys, another reader may keep the first, so a second key could hide an envelope
// (CONTRACT section 2). Only lines holding a send request are read again for this; other traffic is not.
import { findDuplicateKeys } from "../core/json-document.js";
import { isRecord } from "../core/json-value.js";
import type { Problem } from "../core/problems.js";

/** The methods that carry a message (A2A 0.3 and 1.0 names). */
export const SEND_METHODS: ReadonlySet<string> = new Set([
  "message/send",
  "message/stream",
  "SendMessage",
  "SendStreamingMessage",
]);

const isSend = (request: unknown) =>
  isRecord(request) && typeof request.method === "string" && SEND_METHODS.has(request.method);

/**
 * For each send request of a line (`value` is what JSON.parse made of `text`: one request or a batch) whose
 * params repeat a key: that request object, and the first repeated key as a problem with a pointer into params.
 */
export function sendDuplicates(text: string, value: unknown): Map<unknown, Problem> {
  const found = new Map<unknown, Problem>();
  const batch = Array.isArray(value);
  if (!(batch ? value.some(isSend) : isSend(value))) return found;
  for (const duplicate of findDuplicateKeys(text, { value })) {
    const tokens = duplicate.path.slice(1).split("/");
    const request = batch ? value[Number(tokens[0])] : value;
    const rest = batch ? tokens.slice(1) : tokens;
    // The key "params" repeated on the request itself hides a whole other params: its pointer is the params' root.
    if (!isSend(request) || rest[0] !== "params" || found.has(request)) continue;
    const path = rest.length === 1 ? "" : `/${rest.slice(1).join("/")}`;
    found.set(request, {
      path,
      code: "duplicate_key",
      message: `expected each key once in an object, found ${JSON.stringify(duplicate.key)} again`,
    });
  }
  return found;
}
