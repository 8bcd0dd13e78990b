// JSON string escaping of UTF-8 output at SIMD speed, in WebAssembly (src/wasm/json-escape.wat). On 64 KiB chunks of
// command output it takes 0.3-1 ms/MiB with the copies in and out, where decoding the text and JSON.stringify of it
// take 1.7-2 ms/MiB (docs/benchmarks.md); the text is never decoded.
import { isUtf8 } from "node:buffer";
import { WASM } from "./json-escape-binary.js";

/** The largest input escaped here: 6 bytes of output a byte bound the module's memory at 7 times this. */
export const MAX_ESCAPED_INPUT = 1024 * 1024;

/** Where the input goes in the module's memory: after its 256-byte table. */
const INPUT_AT = 256;
const PAGE = 65536;

// The little of WebAssembly used here (Node has it; the project's TypeScript libraries do not declare it).
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
};

interface Escaper {
  memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  escape(from: number, length: number, to: number): number;
}

let escaper: Escaper | null | undefined;

/** The module, made on first use; null where WebAssembly with SIMD is not available (then text is escaped in JS). */
function load(): Escaper | null {
  if (escaper !== undefined) return escaper;
  try {
    const module = new WebAssembly.Module(Buffer.from(WASM, "base64"));
    escaper = new WebAssembly.Instance(module).exports as unknown as Escaper;
  } catch {
    escaper = null;
  }
  return escaper;
}

/**
 * `head`, then what JSON.stringify writes between its quotes for the text whose UTF-8 is `data`, then `tail`: one new
 * buffer of UTF-8. Undefined when `data` is not valid UTF-8 (its text then holds U+FFFD replacements), is over
 * MAX_ESCAPED_INPUT, or WebAssembly is not available. `around` gives head and tail once the bytes are escaped, so
 * input that is declined costs no frame. The escaped bytes are copied out of the module's memory into the line here:
 * no caller ever holds a view of that memory, which the next call overwrites.
 */
export function escapedLine(data: Uint8Array, around: () => { head: string; tail: string }): Buffer | undefined {
  if (!isUtf8(data)) return undefined;
  const end = escapeInPlace(data);
  if (end === undefined) return undefined;
  const escaped = (view as Buffer).subarray(INPUT_AT + data.length, end);
  const { head, tail } = around();
  const headBytes = Buffer.byteLength(head);
  const line = Buffer.allocUnsafe(headBytes + escaped.length + Buffer.byteLength(tail));
  line.write(head, 0, "utf8");
  line.set(escaped, headBytes);
  line.write(tail, headBytes + escaped.length, "utf8");
  return line;
}

/**
 * What JSON.stringify writes between its quotes for the text whose bytes are `data`, all of them ASCII (the caller
 * has checked: ASCII is valid UTF-8), as a string: escaped ASCII is ASCII, so it is copied out of the module's memory
 * once, into a one-byte string that V8 keeps on its heap and writes to a socket as it is. With `around`, its head and
 * tail are written beside the escaped text in the module's memory first, and the string is the whole line: joining
 * them afterwards would make a second string of the same size, a copy and garbage for each event
 * (docs/benchmarks.md, "The 0.3 flood"). Undefined when `data` is over MAX_ESCAPED_INPUT, WebAssembly is not
 * available, or head or tail is not ASCII.
 */
export function escapedAscii(
  data: Uint8Array,
  around: { head: string; tail: string } = NOTHING_AROUND,
): string | undefined {
  const { head, tail } = around;
  if (!isAsciiText(head) || !isAsciiText(tail)) return undefined;
  const end = escapeInPlace(data, head.length, tail.length);
  if (end === undefined) return undefined;
  const buffer = view as Buffer;
  const start = INPUT_AT + data.length;
  buffer.write(head, start, "latin1");
  buffer.write(tail, end, "latin1");
  return buffer.toString("latin1", start, end + tail.length);
}

const NOTHING_AROUND = { head: "", tail: "" };

/** Whether a short text is ASCII (its UTF-8 is as long as it is). */
const isAsciiText = (text: string): boolean => Buffer.byteLength(text) === text.length;

/** A Buffer over the module's memory; made again after the memory grows, which detaches the one before. */
let view: Buffer | undefined;

/**
 * Escapes `data`, valid UTF-8, into the module's memory, after the input and `before` bytes left free for a head;
 * returns where the output ends (it starts at INPUT_AT + data.length + before), with `after` bytes free after it for
 * a tail. What is there is good only until the next call, hence not exported.
 */
function escapeInPlace(data: Uint8Array, before = 0, after = 0): number | undefined {
  if (data.length > MAX_ESCAPED_INPUT) return undefined;
  const wasm = load();
  if (wasm === null) return undefined;
  const output = INPUT_AT + data.length + before;
  const needed = output + 6 * data.length + 16 + after;
  const { memory } = wasm;
  if (memory.buffer.byteLength < needed) {
    try {
      memory.grow(Math.ceil((needed - memory.buffer.byteLength) / PAGE));
    } catch {
      return undefined; // No memory for it now: the text is escaped in JS instead.
    }
  }
  if (view?.buffer !== memory.buffer) view = Buffer.from(memory.buffer);
  view.set(data, INPUT_AT);
  return wasm.escape(INPUT_AT, data.length, output);
}
