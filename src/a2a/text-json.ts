// Output text as a JSON string, the same text JSON.stringify gives, made faster for command output: as a string, or
// for large ASCII output, written with its line's head and tail into one buffer. A chunk is almost all text, and on Node 20
// JSON.stringify escapes a long string at about 500 MiB/s, a regex replace at about 700 MiB/s; replaceAll, includes
// and Buffer.indexOf with one character run at memchr speed (docs/benchmarks.md).
import { isAscii } from "node:buffer";

/** What JSON.stringify writes for each character it must escape (control characters, `"` and `\`). */
const ESCAPES: readonly string[] = Array.from({ length: 0x5d }, (_, code) =>
  JSON.stringify(String.fromCharCode(code)).slice(1, -1),
);
/** U+0000–U+001F, `"` and `\`, written as "anything but the rest": V8 scans a negated class about 1.3 × faster. */
const MUST_ESCAPE = /[^\u0020\u0021\u0023-\u005b\u005d-\uffff]/g;
/** The characters output rarely holds: the control characters but tab, newline and carriage return. */
const RARE = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).filter((c) => !"\t\n\r".includes(c));
/** From this size on, ASCII output is written into its line as bytes; shorter text gains nothing from it. */
export const BYTES_SPLICED_FROM = 4096;
const QUOTE = 0x22;

const escapeOne = (char: string) => ESCAPES[char.charCodeAt(0)] as string;

/** What JSON.stringify writes between its quotes, for text without the rare control characters; else undefined. */
function escapedCommon(text: string): string | undefined {
  if (RARE.some((char) => text.includes(char))) return undefined;
  // Five characters to escape, each replaced at memchr speed (the backslash first).
  return text
    .replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"')
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")
    .replaceAll("\t", "\\t");
}

/** `JSON.stringify(text)`, faster on long strings. */
export function jsonString(text: string): string {
  // A lone surrogate is written as a \u escape, which neither way below looks for; such text is rare.
  if (!text.isWellFormed()) return JSON.stringify(text);
  const escaped = escapedCommon(text);
  return escaped === undefined ? `"${text.replace(MUST_ESCAPE, escapeOne)}"` : `"${escaped}"`;
}

/**
 * `head + JSON.stringify(text) + tail` as UTF-8 bytes, for ASCII `text`, written into one buffer: the escaped text
 * is its own Latin-1 bytes, copied as they are. Built as one string instead, the line had to be joined, checked
 * for non-ASCII and copied again on the way out. Undefined when `text` holds a rare control character.
 */
export function asciiJsonBytes(head: string, text: string, tail: string): Buffer | undefined {
  const escaped = escapedCommon(text);
  if (escaped === undefined) return undefined;
  const headBytes = Buffer.byteLength(head);
  const line = Buffer.allocUnsafe(headBytes + escaped.length + 2 + Buffer.byteLength(tail));
  line.write(head, 0, "utf8");
  let end = headBytes;
  line[end++] = QUOTE;
  end += line.write(escaped, end, "latin1");
  line[end++] = QUOTE;
  line.write(tail, end, "utf8");
  return line;
}

/** JSON text as it goes on the wire: a string, or its UTF-8 bytes when it was made from the command's bytes. */
export type JsonText = string | Buffer;

/** Large wire text parts known to be ASCII, marked without changing their shape. */
const asciiParts = new WeakSet<object>();

/** `part`, marked as ASCII when `data`, the bytes its text was decoded from, is large and ASCII. */
export function withAsciiMark<T extends object>(part: T, data: Buffer): T {
  if (data.length >= BYTES_SPLICED_FROM && isAscii(data)) asciiParts.add(part);
  return part;
}

/** `head + JSON.stringify(part.text) + tail`: bytes for a part marked ASCII, text otherwise. */
export function spliceText(head: string, part: { text: string }, tail: string): JsonText {
  const bytes = asciiParts.has(part) ? asciiJsonBytes(head, part.text, tail) : undefined;
  return bytes ?? `${head}${jsonString(part.text)}${tail}`;
}
