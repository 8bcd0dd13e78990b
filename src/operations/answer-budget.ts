// How large an answer may be, and JSON that is measured while it is made (docs/reference.md, "Answer size"; docs/
// security.md, "Hardening against hostile requests"). An answer past its bound is given up before it is whole: the
// top levels of a value are written member by member and counted, so a page of tasks stops at the task that passes
// the bound instead of becoming one string of every task first.
import { CoreError } from "../core/errors.js";
import { JsonText } from "./json-text.js";

/**
 * An answer (and a batch's answer, all its entries together) may be this many times --max-output-bytes: room for a
 * task's whole output however its text escapes (at most 6 bytes of JSON for one byte) and its history.
 */
const ANSWER_BYTES_PER_OUTPUT_BYTE = 8;

/** The bound of an answer under --max-output-bytes `outputLimit`. */
export const answerLimitOf = (outputLimit: number): number => ANSWER_BYTES_PER_OUTPUT_BYTE * outputLimit;

/**
 * Levels of a value written member by member; below them a value is one piece (JSON.stringify). An answer's result
 * is level 1: a page's tasks are pieces, and so are a task's messages and artifacts.
 */
const WALK_DEPTH = 3;

/** Bytes an answer may still take. Once one did not fit, nothing more does: the rest of a batch is left out. */
export class AnswerBudget {
  private spent = 0;
  private closed = false;

  constructor(readonly maxBytes: number) {}

  get left(): number {
    return this.closed ? 0 : this.maxBytes - this.spent;
  }

  get exhausted(): boolean {
    return this.left <= 0;
  }

  /** Spends `bytes` when they fit in what is left and returns true; else spends nothing more, ever, and returns false. */
  take(bytes: number): boolean {
    if (bytes > this.left) {
      this.closed = true;
      return false;
    }
    this.spent += bytes;
    return true;
  }
}

/** UTF-8 bytes of text; never fewer than its UTF-16 units, so a text too long in units is too long in bytes. */
const bytesOf = (text: string, left: number): number =>
  text.length > left ? text.length : Buffer.byteLength(text, "utf8");

/** JSON text in the pieces it was made of, and its UTF-8 bytes: written piece by piece, it is never joined. */
export interface JsonPieces {
  pieces: string[];
  bytes: number;
}

/**
 * `value` as JSON text (the same text JSON.stringify gives, a JsonText spliced in as it is), or undefined as soon as
 * it passes `maxBytes` of UTF-8.
 */
export function jsonWithin(value: unknown, maxBytes: number): string | undefined {
  return jsonPiecesWithin(value, maxBytes)?.pieces.join("");
}

/** `jsonWithin` as its pieces: a large answer is measured, or written, without one more copy of it. */
export function jsonPiecesWithin(value: unknown, maxBytes: number): JsonPieces | undefined {
  const parts: string[] = [];
  let left = maxBytes;
  const add = (text: string): boolean => {
    left -= bytesOf(text, left);
    if (left < 0) return false;
    parts.push(text);
    return true;
  };
  const walk = (item: unknown, depth: number): boolean => {
    if (item instanceof JsonText) {
      const text = item.text;
      left -= item.bytesOf(text);
      if (left < 0) return false;
      parts.push(text);
      return true;
    }
    if (depth >= WALK_DEPTH || typeof item !== "object" || item === null || hasToJson(item))
      return add(JSON.stringify(item) ?? "null");
    if (Array.isArray(item)) {
      if (!add("[")) return false;
      for (let i = 0; i < item.length; i++) {
        if (i > 0 && !add(",")) return false;
        if (!walk(omitted(item[i]) ? null : item[i], depth + 1)) return false;
      }
      return add("]");
    }
    if (!add("{")) return false;
    let first = true;
    for (const key of Object.keys(item)) {
      const member = (item as Record<string, unknown>)[key];
      if (omitted(member)) continue;
      if (!add(`${first ? "" : ","}${JSON.stringify(key)}:`)) return false;
      first = false;
      if (!walk(member, depth + 1)) return false;
    }
    return add("}");
  };
  return walk(value, 0) ? { pieces: parts, bytes: maxBytes - left } : undefined;
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
const omitted = (value: unknown): boolean =>
  value === undefined || typeof value === "function" || typeof value === "symbol";

const hasToJson = (value: object): boolean => typeof (value as { toJSON?: unknown }).toJSON === "function";

/** The CoreError of an answer past `maxBytes`, which each binding says in its own shape. */
export function tooLargeError(maxBytes: number): CoreError {
  return new CoreError("response_too_large", tooLargeWords(maxBytes), { reason: "response_too_large" });
}

export const tooLargeWords = (maxBytes: number) =>
  `expected an answer of at most ${maxBytes} bytes, found more; ask for less (a smaller pageSize or historyLength, ` +
  "no artifacts)";
