// Stream items as JSON in each family's wire shape, inside the frame of the binding that sends them
// (docs/architecture.md, "The output path"). The item stays the dispatcher's event until here; each is then written
// the fastest correct way for it: a large output chunk of valid UTF-8 that is ASCII or holds ANSI escapes is escaped
// from the bytes the command wrote (WebAssembly, src/wasm/json-escape.ts), its text never decoded; everything else
// (small chunks, other text, other events) is JSON.stringify of the wire object, which is as fast or faster there
// (docs/benchmarks.md, `stream_throughput_shapes`).
import { isAscii } from "node:buffer";
import { randomUUID } from "node:crypto";
import type { OutputEvent } from "../../core/task/events.js";
import { asciiText } from "../../io/wire-encoding.js";
import { escapedAscii, escapedLine } from "../../wasm/json-escape.js";
import type { StreamItem } from "../task-stream.js";
import * as v03 from "../v0_3/codec.js";
import * as v10 from "../v1_0/codec.js";

/** JSON as it goes on the wire: text, or its UTF-8 bytes when it was made from the command's bytes. */
export type WireJson = string | Buffer;

/** What a binding puts around each item: the item is written in one piece with it, so bytes are not copied again. */
export interface Framing {
  readonly head: string;
  readonly tail: string;
}

/** An item in one family's shape, framed; undefined for an item that family does not send. */
export type ItemEncoder<Item = StreamItem> = (item: Item, frame: Framing) => WireJson | undefined;

/**
 * From this size on, ASCII output is escaped from its bytes; from a quarter of it, output with an ANSI escape (which
 * JSON.stringify is slowest at: 6 bytes for 1) is too, whatever its other characters. Under these, JSON.stringify of
 * the wire object is as fast (docs/benchmarks.md, `stream_throughput_shapes`).
 */
export const BYTES_SPLICED_FROM = 4096;

const ESC = 0x1b;

/** Stands for the text while the codec builds the event's shape: no output or id can hold it by chance. */
const MARKER = `text-${randomUUID()}`;
const MARKED = JSON.stringify(MARKER);

const framed = (value: unknown, frame: Framing): string => `${frame.head}${JSON.stringify(value)}${frame.tail}`;

/**
 * An output event in the wire shape `shape` makes, framed. A large chunk is escaped from its bytes: plain ASCII into
 * a one-byte string (no decoding, and V8 writes it to a socket as it is), other valid UTF-8 with ANSI escapes into a
 * line of bytes. Either way the codec builds the shape around a marker (so the codec stays the one place that knows
 * the shape), and the escaped text goes where the marker's JSON is. Other non-ASCII text is decoded and given to
 * JSON.stringify: a new Buffer for each line costs the process page faults, and stdio lost 7-19 % by it
 * (docs/benchmarks.md).
 */
function outputJson(event: OutputEvent, shape: (event: OutputEvent) => unknown, frame: Framing): WireJson | undefined {
  const { data } = event;
  if (data.length === 0) return undefined;
  if (data.length >= BYTES_SPLICED_FROM / 4) {
    const ascii = isAscii(data);
    const around = () => aroundText(event, shape, frame);
    if (ascii && (data.length >= BYTES_SPLICED_FROM || data.includes(ESC))) {
      const parts = around();
      // Made in one piece when the frame is ASCII too, and then known to be ASCII: its write scans it no more.
      const line = escapedAscii(data, parts);
      if (line !== undefined) return asciiText(line);
      const text = escapedAscii(data);
      if (text !== undefined) return `${parts.head}${text}${parts.tail}`;
    } else if (!ascii && data.includes(ESC)) {
      const line = escapedLine(data, around);
      if (line !== undefined) return line;
    }
  }
  return framed(shape(event), frame);
}

/**
 * The framed JSON of the event before and after its text, each with the text's quote. The text comes after every id
 * in both families' shapes, so the last match is the marker itself.
 */
function aroundText(event: OutputEvent, shape: (event: OutputEvent) => unknown, frame: Framing) {
  const marked = JSON.stringify(shape({ ...fieldsOf(event), text: MARKER }));
  const at = marked.lastIndexOf(MARKED);
  return { head: `${frame.head}${marked.slice(0, at)}"`, tail: `"${marked.slice(at + MARKED.length)}${frame.tail}` };
}

/** The event's fields but its text, read without decoding it. */
function fieldsOf(event: OutputEvent): Omit<OutputEvent, "text"> {
  const { type, taskId, contextId, stream, seq, data, raw, first } = event;
  return { type, taskId, contextId, stream, seq, data, raw, first };
}

/** A 0.3 stream item: the task is the stream's answer, not an item; events as `tasks/event` carries them. */
export const encode03: ItemEncoder = (item, frame) => {
  if (item.type === "task") return undefined;
  if (item.type === "output") return outputJson(item, v03.eventOf, frame);
  return framed(v03.eventOf(item), frame);
};

/** A 1.0 StreamResponse: the task, a status update or an artifact update. */
export const encode10: ItemEncoder = (item, frame) => {
  if (item.type === "task") return framed({ task: v10.taskOf(item.task) }, frame);
  if (item.type === "output") return outputJson(item, v10.streamResponseOf, frame);
  return framed(v10.streamResponseOf(item), frame);
};
