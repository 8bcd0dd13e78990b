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
 * The framed JSON of the event before and after its text, each with the text's quote. The events of a stream differ
 * in their `seq` as a rule, and only there: the parts made for one are kept with the seq's place open, and reused for
 * the next that differs in nothing else (the codec's shape and JSON.stringify of it at every event were 0.15 ms/MiB of
 * the bridge, docs/benchmarks.md, "The 0.3 flood").
 */
function aroundText(event: OutputEvent, shape: (event: OutputEvent) => unknown, frame: Framing) {
  const kept = keptParts.get(shape) ?? [];
  let parts = kept.find((each) => each.fits(event));
  if (parts === undefined) {
    parts = SeqParts.of(event, shape);
    if (parts !== undefined) {
      kept.push(parts);
      if (kept.length > MAX_KEPT_PARTS) kept.shift();
      keptParts.set(shape, kept);
    }
  }
  const { head, tail } = parts?.around(event.seq) ?? markedParts(event, event.seq, shape);
  return { head: `${frame.head}${head}`, tail: `${tail}${frame.tail}` };
}

/**
 * The JSON of the event with `seq` before and after its text, each with the text's quote. The text comes after every
 * id in both families' shapes, so the last match is the marker itself.
 */
function markedParts(event: OutputEvent, seq: number, shape: (event: OutputEvent) => unknown) {
  const marked = JSON.stringify(shape({ ...fieldsOf(event), seq, text: MARKER }));
  const at = marked.lastIndexOf(MARKED);
  return { head: `${marked.slice(0, at)}"`, tail: `"${marked.slice(at + MARKED.length)}` };
}

/** A seq no stream reaches (the largest exact integer): where it is found once in the JSON, the seq goes. */
const SEQ_MARK = Number.MAX_SAFE_INTEGER;
const SEQ_MARKED = String(SEQ_MARK);

/** The parts kept for each shape: one for each of a few streams at once (a task's stdout and stderr, say). */
const keptParts = new Map<(event: OutputEvent) => unknown, SeqParts[]>();
const MAX_KEPT_PARTS = 8;

/** An event's JSON around its text with its seq's place open: what the events of its stream share. */
class SeqParts {
  private constructor(
    /** What the shape reads of an event, but its seq and its bytes (which it takes as text, here the marker). */
    private readonly of: Pick<OutputEvent, "taskId" | "contextId" | "stream" | "first">,
    /** The part that holds the seq, split at its place: the head (before the text) or the tail (after it). */
    private readonly inHead: boolean,
    private readonly beforeSeq: string,
    private readonly afterSeq: string,
    /** The other part, whole. */
    private readonly other: string,
  ) {}

  /**
   * The parts of `event`, the seq's place found by making them with SEQ_MARK as its seq; undefined when the mark is
   * not in them exactly once, or the parts with the event's own seq put there are not the ones made with it (a shape
   * that does more with the seq than write it, or an id that holds the mark's digits).
   */
  static of(event: OutputEvent, shape: (event: OutputEvent) => unknown): SeqParts | undefined {
    const { head, tail } = markedParts(event, SEQ_MARK, shape);
    const inHead = head.includes(SEQ_MARKED);
    const holder = inHead ? head : tail;
    const at = holder.indexOf(SEQ_MARKED);
    if (at === -1 || holder.indexOf(SEQ_MARKED, at + 1) !== -1 || (inHead && tail.includes(SEQ_MARKED)))
      return undefined;
    const { taskId, contextId, stream, first } = event;
    const made = new SeqParts(
      { taskId, contextId, stream, first },
      inHead,
      holder.slice(0, at),
      holder.slice(at + SEQ_MARKED.length),
      inHead ? tail : head,
    );
    const own = markedParts(event, event.seq, shape);
    const put = made.around(event.seq);
    return own.head === put.head && own.tail === put.tail ? made : undefined;
  }

  /** Whether `event` differs from the event these were made of in nothing but its seq and its bytes. */
  fits(event: OutputEvent): boolean {
    const was = this.of;
    return (
      event.taskId === was.taskId &&
      event.contextId === was.contextId &&
      event.stream === was.stream &&
      event.first === was.first
    );
  }

  around(seq: number): { head: string; tail: string } {
    const withSeq = `${this.beforeSeq}${JSON.stringify(seq)}${this.afterSeq}`;
    return this.inHead ? { head: withSeq, tail: this.other } : { head: this.other, tail: withSeq };
  }
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
