// Stream items as JSON (src/a2a/wire/encode.ts): whatever way a chunk takes, what is written is exactly head,
// JSON.stringify of the codec's wire shape, tail. Large ASCII output, and output with ANSI escapes, is escaped from the
// bytes the command wrote without its text ever being decoded (a string for ASCII, bytes otherwise); the rest is
// JSON.stringify of the wire object.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { eventOf } from "../../src/a2a/v0_3/codec.js";
import { streamResponseOf, taskOf } from "../../src/a2a/v1_0/codec.js";
import { BYTES_SPLICED_FROM, encode03, encode10 } from "../../src/a2a/wire/encode.js";
import type { OutputEvent } from "../../src/core/task/events.js";
import { wireEncoding } from "../../src/io/wire-encoding.js";
import { output, taskView } from "../helpers/events.js";

const families = [
  { name: "0.3", encode: encode03, shape: eventOf },
  { name: "1.0", encode: encode10, shape: streamResponseOf },
] as const;

/** An output event of `data` whose text may not be read: the bytes path must never decode it. */
function undecoded(data: Buffer, ids: Partial<Omit<OutputEvent, "text">> = {}): OutputEvent {
  const { text: _text, ...fields } = output("", "stdout", true) as OutputEvent;
  return {
    ...fields,
    ...ids,
    data,
    raw: data,
    get text(): string {
      throw new Error("the text was decoded");
    },
  };
}

/** What must be written: head, JSON.stringify of the shape of the event with its text decoded, tail. */
function expected(shape: (event: OutputEvent) => unknown, event: OutputEvent, head: string, tail: string): Buffer {
  const { type, taskId, contextId, stream, seq, data, raw, first } = event;
  const decoded = { type, taskId, contextId, stream, seq, data, raw, first, text: data.toString() };
  return Buffer.from(`${head}${JSON.stringify(shape(decoded))}${tail}`);
}

const chunk = `{"level":"info","msg":"a \\"quoted\\" word"}\t${"z".repeat(200)}\r\n`.repeat(40);
/** Any UTF-16 text, lone surrogates included (a string of random code units). */
const anyText = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 })
  .map((units) => String.fromCharCode(...units));

describe("encode03 and encode10", () => {
  for (const { name, encode, shape } of families) {
    it(`${name}: large output with non-ASCII characters and ANSI escapes as bytes: framed, never decoded`, () => {
      for (const text of [`\u001b[32m✓\u001b[39m é 😀 ${chunk}`, `${chunk}\u001b[0m\u2028`, `\u001b[31mé${chunk}`]) {
        const event = undecoded(Buffer.from(text));
        const frame = { head: '{"jsonrpc":"2.0","params":', tail: "}\n" };
        const written = encode(event, frame);
        assert.ok(Buffer.isBuffer(written));
        assert.deepEqual(written, expected(shape, event, frame.head, frame.tail));
      }
    });

    it(`${name}: large output with non-ASCII characters and no ANSI escape is JSON.stringify's of its text`, () => {
      for (const text of [`✓ é 😀 ${chunk}`, `${chunk}\u2028`]) {
        const data = Buffer.from(text);
        const event = { ...(output("", "stdout") as OutputEvent), text, data, raw: data };
        const written = encode(event, { head: "<", tail: ">" });
        assert.equal(written, `<${JSON.stringify(shape(event))}>`);
      }
    });

    it(`${name}: large ASCII output (ANSI escapes, quotes, tabs, CR LF and all) as a string, never decoded`, () => {
      for (const text of [`\u0000\b\f${chunk}`, `\u001b[31m${chunk}\u001b[0m`, "x".repeat(BYTES_SPLICED_FROM)]) {
        const event = undecoded(Buffer.from(text));
        const written = encode(event, { head: "<", tail: ">" });
        assert.equal(typeof written, "string");
        assert.deepEqual(Buffer.from(written as string), expected(shape, event, "<", ">"));
      }
    });

    it(`${name}: large ASCII output with non-ASCII ids or frame: the same bytes, as its write encodes them`, () => {
      const cases = [
        { ids: { taskId: "tâche", contextId: "ctx" }, frame: { head: "<", tail: ">" } },
        { ids: {}, frame: { head: "data: é ", tail: "\n\n" } },
        { ids: {}, frame: { head: "<", tail: "😀>" } },
        { ids: { taskId: "t", contextId: "c" }, frame: { head: "<", tail: ">" } },
      ];
      for (const { ids, frame } of cases) {
        const event = undecoded(Buffer.from(`\u001b[1m${chunk}`), ids);
        const written = encode(event, frame) as string;
        assert.equal(typeof written, "string");
        const bytes = expected(shape, event, frame.head, frame.tail);
        assert.deepEqual(Buffer.from(written), bytes);
        assert.deepEqual(Buffer.from(written, wireEncoding(written)), bytes);
      }
    });

    it(`${name}: a stream's events one after another, several streams at once, any seq: each exactly its own JSON`, () => {
      const ids = [
        { taskId: "task-a", contextId: "ctx" },
        { taskId: "task-b", contextId: "ctx" },
        // Ids that hold the digits which mark a seq's place while the parts are made.
        { taskId: `${Number.MAX_SAFE_INTEGER}`, contextId: `x${Number.MAX_SAFE_INTEGER}x` },
      ];
      const seqs = [1, 2, 9, 10, 11, 99, 100, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER];
      const data = Buffer.from(`\u001b[1m${chunk}`);
      for (const seq of seqs)
        for (const { taskId, contextId } of ids)
          for (const stream of ["stdout", "stderr"] as const)
            for (const first of [true, false]) {
              const event = undecoded(data, { taskId, contextId, stream, first, seq });
              const frame = { head: `id: ${seq}\ndata: `, tail: "\n\n" };
              const written = encode(event, frame) as string;
              assert.deepEqual(
                Buffer.from(written),
                expected(shape, event, frame.head, frame.tail),
                `${seq} ${taskId}`,
              );
            }
    });

    it(`${name}: from a quarter of the size, only output with ANSI escapes is escaped`, () => {
      const medium = (text: string) => Buffer.from(text.repeat(Math.ceil(BYTES_SPLICED_FROM / 4 / text.length)));
      for (const data of [medium("é \u001b[1mok\u001b[0m\n"), medium("\u001b[1mbold\u001b[0m\n")]) {
        const event = undecoded(data);
        const written = encode(event, { head: "", tail: "" });
        assert.deepEqual(Buffer.from(written as string), expected(shape, event, "", ""));
      }
      for (const plain of [medium('a "plain" line\n'), medium("é ok\n")]) {
        assert.ok(plain.length < BYTES_SPLICED_FROM);
        assert.throws(() => encode(undecoded(plain), { head: "", tail: "" }), /the text was decoded/);
      }
    });

    it(`${name}: output of a quarter of the size and more, with any ids and any characters (property)`, () => {
      fc.assert(
        fc.property(
          fc.string(),
          fc.string(),
          fc.string({ unit: "grapheme", minLength: 1 }),
          fc.boolean(),
          fc.integer({ min: BYTES_SPLICED_FROM / 4, max: 2 * BYTES_SPLICED_FROM }),
          (taskId, contextId, text, coloured, size) => {
            const piece = coloured ? `\u001b[1m${text}` : text;
            const data = Buffer.from(piece.repeat(Math.ceil(size / Buffer.byteLength(piece))));
            const nonAscii = [...piece].some((c) => (c.codePointAt(0) as number) > 0x7f);
            const ansi = piece.includes("\u001b");
            // Escaped from the bytes (never decoded) when it holds an ANSI escape, or is ASCII of BYTES_SPLICED_FROM
            // and more: bytes for text with a non-ASCII character, a string for ASCII.
            const escaped = ansi || (!nonAscii && data.length >= BYTES_SPLICED_FROM);
            const event = escaped
              ? undecoded(data, { taskId, contextId })
              : {
                  ...(output("", "stdout", true) as OutputEvent),
                  taskId,
                  contextId,
                  text: data.toString(),
                  data,
                  raw: data,
                };
            const written = encode(event, { head: "data: ", tail: "\n\n" });
            assert.equal(Buffer.isBuffer(written), nonAscii && ansi);
            assert.deepEqual(Buffer.from(written as Buffer), expected(shape, event, "data: ", "\n\n"));
          },
        ),
        { numRuns: 300 },
      );
    });

    it(`${name}: small output, any text and lone surrogates, as JSON.stringify's text (property)`, () => {
      fc.assert(
        fc.property(anyText, (text) => {
          const event = output(text, "stdout") as OutputEvent;
          const written = encode(event, { head: "<", tail: ">" });
          if (event.data.length === 0) return assert.equal(written, undefined);
          assert.equal(typeof written, "string");
          assert.equal(written, `<${JSON.stringify(shape(event))}>`);
        }),
        { numRuns: 1000 },
      );
    });

    it(`${name}: large bytes that are not valid UTF-8 go as text, exactly JSON.stringify's`, () => {
      const data = Buffer.concat([Buffer.from(chunk), Buffer.from([0xff, 0x0a])]);
      const event = { ...(output("", "stderr") as OutputEvent), text: data.toString(), data, raw: data };
      const written = encode(event, { head: "[", tail: "]" });
      assert.equal(typeof written, "string");
      assert.deepEqual(Buffer.from(written as string), expected(shape, event, "[", "]"));
    });

    it(`${name}: output with no bytes is not sent`, () => {
      const data = Buffer.alloc(0);
      assert.equal(
        encode({ ...(output("", "stdout") as OutputEvent), data, raw: data }, { head: "", tail: "" }),
        undefined,
      );
    });
  }

  it("status events in each family's shape; the task is a 1.0 item and the 0.3 answer, not a 0.3 item", () => {
    const task = taskView({ state: "completed", exitCode: 0 });
    const status = { type: "status" as const, task };
    const frame = { head: "<", tail: ">" };
    assert.equal(encode03(status, frame), `<${JSON.stringify(eventOf(status))}>`);
    assert.equal(encode10(status, frame), `<${JSON.stringify(streamResponseOf(status))}>`);
    assert.equal(encode03({ type: "task", task }, frame), undefined);
    assert.equal(encode10({ type: "task", task }, frame), `<${JSON.stringify({ task: taskOf(task) })}>`);
  });
});
