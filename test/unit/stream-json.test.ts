// Stream items as JSON: large output goes out as bytes escaped from what the command wrote, exactly the UTF-8 of
// JSON.stringify of the codec's wire shape, without its text ever being decoded; the rest as text, just as exact.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { BYTES_SPLICED_FROM } from "../../src/a2a/output-json.js";
import { itemJson03, itemJson10 } from "../../src/a2a/stream-json.js";
import { eventOf } from "../../src/a2a/v0_3/codec.js";
import { streamResponseOf } from "../../src/a2a/v1_0/codec.js";
import type { OutputEvent } from "../../src/core/events.js";
import { output, taskView } from "../helpers/events.js";

const families = [
  { name: "0.3", json: itemJson03, shape: eventOf },
  { name: "1.0", json: itemJson10, shape: streamResponseOf },
] as const;

/** An output event of `data` whose text may not be read: the bytes path must never decode it. */
function undecoded(data: Buffer, ids: { taskId?: string; contextId?: string } = {}): OutputEvent {
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

describe("itemJson03 and itemJson10: large output as bytes", () => {
  for (const { name, json, shape } of families) {
    it(`${name}: ASCII, non-ASCII and control characters, framed, exactly JSON.stringify's, never decoded`, () => {
      for (const text of [chunk, `✓ é 😀 ${chunk}`, `\u001b[31m\u0000\b\f${chunk}\u2028`]) {
        const event = undecoded(Buffer.from(text));
        const written = json(event, '{"jsonrpc":"2.0","params":', "}\n");
        assert.ok(Buffer.isBuffer(written));
        assert.deepEqual(written, expected(shape, event, '{"jsonrpc":"2.0","params":', "}\n"));
      }
    });

    it(`${name}: any ids and any output (property)`, () => {
      fc.assert(
        fc.property(
          fc.string(),
          fc.string(),
          fc.string({ unit: "grapheme", minLength: 1 }),
          (taskId, contextId, piece) => {
            const data = Buffer.from(piece.repeat(Math.ceil(BYTES_SPLICED_FROM / Buffer.byteLength(piece))));
            const event = undecoded(data, { taskId, contextId });
            assert.deepEqual(json(event, "data: ", "\n\n"), expected(shape, event, "data: ", "\n\n"));
          },
        ),
        { numRuns: 300 },
      );
    });

    it(`${name}: small output and bytes that are not valid UTF-8 go as text, exactly JSON.stringify's`, () => {
      for (const data of [Buffer.from("small\n"), Buffer.concat([Buffer.from(chunk), Buffer.from([0xff, 0x0a])])]) {
        const event = { ...(output("", "stderr") as OutputEvent), text: data.toString(), data, raw: data };
        const written = json(event, "[", "]");
        assert.equal(typeof written, "string");
        assert.deepEqual(Buffer.from(written), expected(shape, event, "[", "]"));
      }
    });
  }

  it("wire objects go as text: a status event of each family", () => {
    const status = { type: "status" as const, task: taskView({ state: "completed", exitCode: 0 }) };
    assert.equal(itemJson03(eventOf(status), "<", ">"), `<${JSON.stringify(eventOf(status))}>`);
    assert.equal(itemJson10(streamResponseOf(status), "<", ">"), `<${JSON.stringify(streamResponseOf(status))}>`);
  });
});
