// LineSplitter: NDJSON framing of the stdio bridge (CONTRACT section 5.1).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_MAX_LINE_BYTES, type Frame, LineSplitter } from "../../src/io/line-splitter.js";

const line = (text: string | Buffer): Frame => ({ kind: "line", line: Buffer.from(text) });
const oversized = (bytes: number): Frame => ({ kind: "oversized", bytes });

/** Feeds the chunks in order and collects every frame, `end()` included. */
function frames(splitter: LineSplitter, chunks: Array<string | Buffer>, end = true): Frame[] {
  const out = chunks.flatMap((chunk) => splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  return end ? [...out, ...splitter.end()] : out;
}

/** Cuts `buf` at every offset in `cuts` (ascending). */
function cut(buf: Buffer, cuts: number[]): Buffer[] {
  const pieces: Buffer[] = [];
  let at = 0;
  for (const c of cuts) {
    pieces.push(buf.subarray(at, c));
    at = c;
  }
  pieces.push(buf.subarray(at));
  return pieces;
}

describe("LineSplitter", () => {
  it("has a default limit of 1 MiB", () => {
    assert.equal(DEFAULT_MAX_LINE_BYTES, 1024 * 1024);
  });

  it("returns the lines of one chunk in order", () => {
    assert.deepEqual(frames(new LineSplitter(), ['{"a":1}\n{"b":2}\n[3]\n']), [
      line('{"a":1}'),
      line('{"b":2}'),
      line("[3]"),
    ]);
  });

  it("carries a partial line across chunks, whatever the cut", () => {
    const text = '{"jsonrpc":"2.0","id":1,"method":"tasks/list"}\n{"jsonrpc":"2.0","id":2,"method":"x"}\n';
    const bytes = Buffer.from(text);
    for (let a = 0; a <= bytes.length; a += 3) {
      for (let b = a; b <= bytes.length; b += 7) {
        const got = frames(new LineSplitter(), cut(bytes, [a, b]));
        assert.deepEqual(
          got,
          [line('{"jsonrpc":"2.0","id":1,"method":"tasks/list"}'), line('{"jsonrpc":"2.0","id":2,"method":"x"}')],
          `cut at ${a}, ${b}`,
        );
      }
    }
  });

  it("feeds one byte at a time", () => {
    const splitter = new LineSplitter();
    const bytes = Buffer.from("one\ntwo\r\nthree\n");
    const got: Frame[] = [];
    for (const byte of bytes) got.push(...splitter.push(Buffer.from([byte])));
    assert.deepEqual(got, [line("one"), line("two"), line("three")]);
    assert.deepEqual(splitter.end(), []);
  });

  it("ignores a trailing \\r (\\r\\n line ends), also when \\r and \\n arrive in different chunks", () => {
    assert.deepEqual(frames(new LineSplitter(), ["[1]\r\n[2]\r", "\n"]), [line("[1]"), line("[2]")]);
  });

  it("keeps a \\r that is not at the end of the line", () => {
    assert.deepEqual(frames(new LineSplitter(), ['"a\rb"\n']), [line('"a\rb"')]);
  });

  it("ignores empty and blank lines", () => {
    assert.deepEqual(frames(new LineSplitter(), ["\n\n[1]\n\r\n   \n\t\n", "\n[2]\n\n"]), [line("[1]"), line("[2]")]);
  });

  it("decodes a multi-byte UTF-8 character split across chunks", () => {
    const text = '{"t":"é€😀 ünï"}';
    const bytes = Buffer.from(`${text}\n`);
    for (let at = 1; at < bytes.length - 1; at++) {
      const got = frames(new LineSplitter(), cut(bytes, [at]));
      assert.deepEqual(got, [line(text)], `cut at byte ${at}`);
    }
    // Every byte of a 4-byte character in its own chunk.
    const emoji = Buffer.from("😀\n");
    assert.deepEqual(frames(new LineSplitter(), cut(emoji, [1, 2, 3, 4])), [line("😀")]);
  });

  it("end() returns a last line that has no newline", () => {
    const splitter = new LineSplitter();
    assert.deepEqual(splitter.push(Buffer.from('[1]\n{"last":')), [line("[1]")]);
    assert.deepEqual(splitter.push(Buffer.from("true}")), []);
    assert.deepEqual(splitter.end(), [line('{"last":true}')]);
  });

  it("end() with nothing left (or only blanks, or a lone \\r) returns nothing", () => {
    assert.deepEqual(new LineSplitter().end(), []);
    const a = new LineSplitter();
    a.push(Buffer.from("[1]\n"));
    assert.deepEqual(a.end(), []);
    const b = new LineSplitter();
    b.push(Buffer.from("   "));
    assert.deepEqual(b.end(), []);
    const c = new LineSplitter();
    c.push(Buffer.from("\r"));
    assert.deepEqual(c.end(), []);
  });

  it("accepts a line of exactly the limit, also with a trailing \\r", () => {
    const text = "x".repeat(16);
    assert.deepEqual(frames(new LineSplitter(16), [`${text}\n`, `${text}\r\n`]), [line(text), line(text)]);
  });

  it("reports an oversized line once, skips it to the next newline, and goes on", () => {
    const splitter = new LineSplitter(16);
    const long = "y".repeat(40);
    assert.deepEqual(frames(splitter, [`[1]\n${long}\n[2]\n`]), [line("[1]"), oversized(40), line("[2]")]);
  });

  it("reports an oversized line once however many chunks it spans, and counts all of its bytes", () => {
    const splitter = new LineSplitter(16);
    const got: Frame[] = [];
    got.push(...splitter.push(Buffer.from("[0]\nabcdefghij")));
    got.push(...splitter.push(Buffer.from("klmnopqrstuvwxyz"))); // over the limit here
    for (let i = 0; i < 50; i++) got.push(...splitter.push(Buffer.from("0123456789")));
    assert.deepEqual(got, [line("[0]")], "nothing is reported before the line ends");
    got.push(...splitter.push(Buffer.from("tail\n[1]\n")));
    assert.deepEqual(got, [line("[0]"), oversized(10 + 16 + 500 + 4), line("[1]")]);
    assert.deepEqual(splitter.end(), []);
  });

  it("does not keep the bytes of an oversized line (memory stays bounded)", () => {
    const splitter = new LineSplitter(1024);
    const block = Buffer.alloc(64 * 1024, 0x61);
    for (let i = 0; i < 64; i++) assert.deepEqual(splitter.push(block), []); // 4 MiB in one line
    const state = splitter as unknown as { parts: Buffer[]; size: number };
    assert.equal(state.size, 0);
    assert.equal(state.parts.length, 0);
    assert.deepEqual(splitter.push(Buffer.from("\n[1]\n")), [oversized(4 * 1024 * 1024), line("[1]")]);
  });

  it("end() reports an oversized last line that has no newline", () => {
    const splitter = new LineSplitter(8);
    assert.deepEqual(splitter.push(Buffer.from("0123456789abcdef")), []);
    assert.deepEqual(splitter.end(), [oversized(16)]);
  });

  it("reports a line one byte over the limit", () => {
    assert.deepEqual(frames(new LineSplitter(16), [`${"z".repeat(17)}\n[1]\n`]), [oversized(17), line("[1]")]);
    // 16 bytes and a \r fit (the \r is not counted); 17 bytes and a \r do not.
    const withCr = frames(new LineSplitter(16), [`${"z".repeat(17)}\r\n[2]\n`]);
    assert.deepEqual(
      withCr.map((frame) => frame.kind),
      ["oversized", "line"],
    );
  });

  it("measures the limit in UTF-8 bytes, not characters", () => {
    const fits = "é".repeat(8); // 16 bytes
    const over = "é".repeat(9); // 18 bytes
    assert.deepEqual(frames(new LineSplitter(16), [`${fits}\n${over}\n`]), [line(fits), oversized(18)]);
  });

  it("measures the limit on the bytes received, even when they are not valid UTF-8", () => {
    // 16 bytes that are not UTF-8: within the limit, so it is a line (the bridge answers it with -32700), not an
    // oversized one (-32600). Decoding turns each byte into U+FFFD (3 bytes), which must not count.
    const bytes = Buffer.concat([Buffer.alloc(16, 0xff), Buffer.from("\n")]);
    const got = frames(new LineSplitter(16), [bytes]);
    assert.equal(got.length, 1);
    assert.equal(got[0]?.kind, "line", `got ${JSON.stringify(got)}`);
  });
});
