// What the process start imposes on a message, checked with the envelope rather than found at spawn
// (CONTRACT section 2): AIWG_A2A_MESSAGE is an environment variable, so it holds no NUL and has a size.

import { utf8Length } from "../utf8-length.js";
import { joinPointer } from "./json-pointer.js";
import { type MessageSeen, textsOf } from "./message.js";
import type { Problem } from "./problems.js";

/** The joined text (AIWG_A2A_MESSAGE), in UTF-8 bytes. */
export const MAX_MESSAGE_BYTES = 64 * 1024;
/** Parts of any kind in one message. */
const MAX_PARTS = 1000;

/** The start limits broken by the message at `path` (its parts as its codec read them: checked even if the message is malformed). */
export function startLimitProblems(message: MessageSeen, path: string): Problem[] {
  const parts = message.parts;
  if (!parts) return [];
  const partsPath = joinPointer(path, "parts");
  const problems: Problem[] = [];
  if (parts.length > MAX_PARTS) {
    problems.push({
      path: partsPath,
      code: "too_many_parts",
      message: `expected at most ${MAX_PARTS} parts, found ${parts.length}`,
    });
  }
  parts.forEach((part, index) => {
    if (part?.type === "text" && part.text.includes("\u0000")) {
      problems.push({
        path: joinPointer(partsPath, index, "text"),
        code: "message_nul",
        message:
          "expected text without NUL characters (it becomes AIWG_A2A_MESSAGE, an environment variable), found one",
      });
    }
  });
  const texts = textsOf(parts);
  // Counted without building the joined string: one newline between texts.
  const bytes = texts.reduce((sum, text) => sum + utf8Length(text), Math.max(0, texts.length - 1));
  if (bytes > MAX_MESSAGE_BYTES) {
    problems.push({
      path: partsPath,
      code: "message_too_large",
      message: `expected the text parts, joined by newlines (AIWG_A2A_MESSAGE), to be at most ${MAX_MESSAGE_BYTES} bytes of UTF-8, found ${bytes}`,
    });
  }
  return problems;
}
