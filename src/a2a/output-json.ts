// An output event's JSON in a codec's wire shape, with its text escaped straight from the bytes the command wrote
// (src/wasm/json-escape.ts) into a line made as bytes in one buffer: the event's text is never decoded, and no line
// is joined as a string, checked for non-ASCII and copied again on the way out (docs/benchmarks.md).
import { randomUUID } from "node:crypto";
import type { OutputEvent } from "../core/events.js";
import { escapedUtf8 } from "../wasm/json-escape.js";

/** From this size on, output is escaped from its bytes; shorter text gains nothing from it. */
export const BYTES_SPLICED_FROM = 4096;

/** Stands for the text while the codec builds the event's shape: no output or id can hold it by chance. */
const MARKER = `text-${randomUUID()}`;
const MARKED = JSON.stringify(MARKER);
const QUOTE = 0x22;

/**
 * `head + JSON.stringify(shape(event)) + tail` as UTF-8 bytes, `shape` being a codec's wire shape of an output event.
 * The codec builds the shape around a marker, and the escaped bytes go where the marker's JSON is, so the codec
 * stays the one place that knows the shape. Undefined for output under 4 KiB, and for bytes that are not valid
 * UTF-8 (their text holds U+FFFD): the caller writes those as text.
 */
export function outputJson(
  event: OutputEvent,
  shape: (event: OutputEvent) => unknown,
  head: string,
  tail: string,
): Buffer | undefined {
  if (event.data.length < BYTES_SPLICED_FROM) return undefined;
  // A view of the escaper's memory, good until the next escaping: nothing below escapes again.
  const escaped = escapedUtf8(event.data);
  if (escaped === undefined) return undefined;
  const marked = JSON.stringify(shape({ ...fieldsOf(event), text: MARKER }));
  // The text comes after every id in both families' shapes, so the last match is the marker itself.
  const at = marked.lastIndexOf(MARKED);
  const before = `${head}${marked.slice(0, at)}`;
  const after = `${marked.slice(at + MARKED.length)}${tail}`;
  const beforeBytes = Buffer.byteLength(before);
  const line = Buffer.allocUnsafe(beforeBytes + 1 + escaped.length + 1 + Buffer.byteLength(after));
  line.write(before, 0, "utf8");
  let end = beforeBytes;
  line[end++] = QUOTE;
  line.set(escaped, end);
  end += escaped.length;
  line[end++] = QUOTE;
  line.write(after, end, "utf8");
  return line;
}

/** The event's fields but its text, read without decoding it. */
function fieldsOf(event: OutputEvent): Omit<OutputEvent, "text"> {
  const { type, taskId, contextId, stream, seq, data, raw, first } = event;
  return { type, taskId, contextId, stream, seq, data, raw, first };
}
