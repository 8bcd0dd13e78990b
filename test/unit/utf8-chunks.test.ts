// Output decoding (CONTRACT section 3.3): characters are never split across chunks, and every piece of text counts
// the bytes the command wrote for it, so totals equal what was written even for bytes that are not UTF-8.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { Emitter } from "../../src/core/task/events.js";
import { BYTES_KEPT_FROM, OutputLog } from "../../src/core/task/output-log.js";
import type { TaskRecord } from "../../src/core/task/task-record.js";
import { TaskRun } from "../../src/core/task/task-run.js";
import { decodeUtf8, incompleteTail, Utf8Chunks } from "../../src/core/task/utf8-chunks.js";
import { MemoryStore } from "../../src/store/memory.js";
import { BINARY_STDOUT_BYTES, binaryFixtureBytes } from "../helpers/binary-output.js";

/** Cuts `bytes` at the given points (taken modulo its length, sorted). */
function split(bytes: Buffer, points: number[]): Buffer[] {
  const cuts = [...new Set(points.map((point) => (bytes.length === 0 ? 0 : point % (bytes.length + 1))))].sort(
    (a, b) => a - b,
  );
  const pieces: Buffer[] = [];
  let start = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(bytes.subarray(start, cut));
    start = cut;
  }
  return pieces;
}

/** Each piece's text and byte count; the bytes each one keeps must decode to its text again. */
function decodeAll(pieces: Buffer[]) {
  const decoder = new Utf8Chunks();
  const chunks = pieces.map((piece) => decoder.write(piece));
  chunks.push(decoder.end());
  return chunks.map(({ text, data }) => {
    assert.equal(decodeUtf8(data), text);
    return { text, bytes: data.length };
  });
}

describe("incompleteTail", () => {
  const cases: Array<[string, number[], number]> = [
    ["empty", [], 0],
    ["ASCII", [0x61], 0],
    ["a complete 2-byte character", [0xc3, 0xa9], 0],
    ["the lead of a 2-byte character", [0x61, 0xc3], 1],
    ["2 of 3 bytes of €", [0xe2, 0x82], 2],
    ["3 of 4 bytes of an emoji", [0xf0, 0x9f, 0x98], 3],
    ["a complete emoji", [0xf0, 0x9f, 0x98, 0x80], 0],
    ["stray continuation bytes", [0x80, 0x80, 0x80], 0],
    ["bytes that never start a character", [0xff], 0],
    ["0xc0 (never valid)", [0xc0], 0],
    ["0xf5 (beyond U+10FFFF)", [0xf5, 0x80], 0],
  ];
  for (const [name, bytes, held] of cases) {
    it(`${name}: ${held}`, () => assert.equal(incompleteTail(Uint8Array.from(bytes)), held));
  }
});

describe("decodeUtf8", () => {
  it("ASCII, Latin-1 look-alikes and invalid bytes decode as Node's UTF-8 decoder does", () => {
    for (const bytes of [[0x61, 0x0a, 0x7f], [0xc3, 0xa9], [0xe9], [0x80], [0xff, 0x61], []]) {
      assert.equal(decodeUtf8(Buffer.from(bytes)), Buffer.from(bytes).toString("utf8"), JSON.stringify(bytes));
    }
  });

  it("property: any bytes decode to Node's UTF-8 text", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (array) => {
        const bytes = Buffer.from(array);
        assert.equal(decodeUtf8(bytes), bytes.toString("utf8"));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("Utf8Chunks", () => {
  it("holds back a character cut across writes and counts its bytes where it is complete", () => {
    const chunks = decodeAll([Buffer.from([0xe2]), Buffer.from([0x82]), Buffer.from([0xac, 0x21])]);
    assert.deepEqual(chunks, [
      { text: "", bytes: 0 },
      { text: "", bytes: 0 },
      { text: "€!", bytes: 4 },
      { text: "", bytes: 0 },
    ]);
  });

  it("a chunk's text is decoded when first read, then kept", () => {
    // Seen through the bytes it decodes from: a change to them before the first read shows, a later one does not.
    const bytes = Buffer.from("x".repeat(5000));
    const chunk = new Utf8Chunks().write(bytes);
    bytes.fill("y");
    assert.equal(chunk.text, "y".repeat(5000));
    bytes.fill("z");
    assert.equal(chunk.text, "y".repeat(5000));
  });

  it("an invalid byte is one U+FFFD that counts 1 byte, not the 3 of its replacement", () => {
    assert.deepEqual(decodeAll([Buffer.from([0x61, 0xff, 0x62])]).at(0), { text: "a\uFFFDb", bytes: 3 });
  });

  it("a character still incomplete at the end of the stream comes out of end() with its bytes", () => {
    const chunks = decodeAll([Buffer.from([0x61, 0xf0, 0x9f, 0x98])]);
    assert.deepEqual(chunks, [
      { text: "a", bytes: 1 },
      { text: "\uFFFD", bytes: 3 },
    ]);
  });

  it("344 505 bytes of binary output count 344 505 bytes", () => {
    const { stdout } = binaryFixtureBytes();
    const chunks = decodeAll(split(stdout, [4093, 8186, 100_001, 344_504]));
    assert.equal(
      chunks.reduce((sum, chunk) => sum + chunk.bytes, 0),
      BINARY_STDOUT_BYTES,
    );
    assert.ok(Buffer.byteLength(chunks.map((chunk) => chunk.text).join("")) > BINARY_STDOUT_BYTES);
  });

  it("property: any bytes cut anywhere decode to the text of the whole, and the counts add up to the bytes", () => {
    const anyBytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      // Mostly UTF-8 with some damage: the cases where characters are cut.
      fc
        .tuple(fc.string({ unit: "binary", maxLength: 60 }), fc.uint8Array({ maxLength: 6 }), fc.nat())
        .map(([text, junk, at]) => {
          const bytes = Buffer.from(text);
          const cut = bytes.length === 0 ? 0 : at % bytes.length;
          return Uint8Array.from([...bytes.subarray(0, cut), ...junk, ...bytes.subarray(cut)]);
        }),
    );
    fc.assert(
      fc.property(anyBytes, fc.array(fc.nat(), { maxLength: 12 }), (array, points) => {
        const bytes = Buffer.from(array);
        const chunks = decodeAll(split(bytes, points));
        assert.equal(chunks.map((chunk) => chunk.text).join(""), bytes.toString("utf8"));
        assert.equal(
          chunks.reduce((sum, chunk) => sum + chunk.bytes, 0),
          bytes.length,
        );
        for (const chunk of chunks) assert.equal(chunk.text === "", chunk.bytes === 0, JSON.stringify(chunk));
      }),
      { numRuns: 2000 },
    );
  });
});

describe("TaskRun output: byte counts are the bytes written", () => {
  function taskRun(limit: number, emitter = new Emitter()): TaskRun {
    const record = {
      id: "t",
      contextId: "c",
      state: "working",
      stdout: new OutputLog(limit),
      stderr: new OutputLog(limit),
      seq: 0,
      revision: 0,
    } as unknown as TaskRecord;
    return new TaskRun(record, { store: new MemoryStore(), emitter, now: Date.now });
  }

  it("total_bytes of binary output is what the command wrote, on each stream", () => {
    const { stdout, stderr } = binaryFixtureBytes();
    const run = taskRun(8 * 1024 * 1024);
    for (const piece of split(stdout, [4093, 8186, 12_279])) run.output("stdout", piece);
    for (const byte of stderr) run.output("stderr", Buffer.from([byte]));
    run.flush("stdout");
    run.flush("stderr");
    assert.equal(run.record.stdout.totalBytes, BINARY_STDOUT_BYTES);
    assert.equal(run.record.stdout.droppedBytes, 0);
    assert.equal(run.record.stderr.totalBytes, 5);
    const text = (log: OutputLog) =>
      log
        .chunks()
        .map((chunk) => chunk.text)
        .join("");
    assert.equal(text(run.record.stdout), stdout.toString("utf8"));
    assert.equal(text(run.record.stderr), "€\uFFFD\n");
  });

  it("the log keeps large chunks as the bytes written, small ones as text, and reads them back as they were sent", () => {
    const emitter = new Emitter();
    const run = taskRun(8 * 1024 * 1024, emitter);
    const sent: string[] = [];
    emitter.subscribe((event) => {
      if (event.type === "output" && event.text !== "") sent.push(event.text);
    });
    const large = `${"é".repeat(BYTES_KEPT_FROM / 2)}\n`;
    const pieces = [Buffer.from(large), Buffer.from("small\n"), Buffer.from([0xe2, 0x82]), Buffer.from([0xac, 0xff])];
    for (const piece of pieces) run.output("stdout", piece);
    const chunks = run.record.stdout.chunks();
    // Until it is read, the large chunk holds its bytes and no string.
    const held = chunks[0] as unknown as { data?: Buffer; decoded?: string };
    assert.equal(held.decoded, undefined);
    assert.equal(held.data?.length, Buffer.byteLength(large));
    assert.equal(typeof Object.getOwnPropertyDescriptor(chunks[1], "text")?.value, "string");
    assert.deepEqual(
      chunks.map((chunk) => chunk.text),
      sent,
    );
    assert.deepEqual(sent, [large, "small\n", "€\uFFFD"]);
    assert.equal(chunks[0]?.bytes, Buffer.byteLength(large));
    // Once read, the text is kept instead of the bytes: every later reader gets the same string.
    assert.equal(held.data, undefined);
    assert.equal(held.decoded, large);
  });

  it("the limit and dropped_bytes count written bytes too: kept + dropped = written", () => {
    const { stdout } = binaryFixtureBytes();
    const run = taskRun(64 * 1024);
    for (let at = 0; at < stdout.length; at += 1000) run.output("stdout", stdout.subarray(at, at + 1000));
    run.flush("stdout");
    const log = run.record.stdout;
    assert.equal(log.totalBytes, BINARY_STDOUT_BYTES);
    assert.equal(log.keptBytes + log.droppedBytes, BINARY_STDOUT_BYTES);
    assert.ok(log.keptBytes <= 64 * 1024, `kept ${log.keptBytes}`);
  });
});
