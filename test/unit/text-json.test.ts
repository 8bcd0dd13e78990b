// Output text spliced into JSON as bytes: exactly the UTF-8 of what JSON.stringify writes, for any bytes the byte
// path takes, and the string path for the rest.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { asciiJsonBytes, BYTES_SPLICED_FROM, spliceText, withAsciiMark } from "../../src/a2a/text-json.js";
import { eventOf, type WireEvent } from "../../src/a2a/v0_3/codec.js";
import { eventJson, notificationJson } from "../../src/a2a/v0_3/event-json.js";
import { type StreamResponse1, streamResponseOf } from "../../src/a2a/v1_0/codec.js";
import { streamResponseJson } from "../../src/a2a/v1_0/event-json.js";
import { output } from "../helpers/events.js";

/** What the bytes must be: the UTF-8 of head, the text as JSON.stringify writes it, and tail. */
const expected = (head: string, text: string, tail: string) => Buffer.from(`${head}${JSON.stringify(text)}${tail}`);

/** ASCII text that looks like command output: lines, quotes, backslashes, tabs, and now and then any ASCII. */
const asciiOutput = fc
  .array(
    fc.oneof(
      { weight: 20, arbitrary: fc.constantFrom(..."ok done 42 ".split("")) },
      { weight: 4, arbitrary: fc.constantFrom("\n", "\r", "\t", '"', "\\") },
      { weight: 1, arbitrary: fc.integer({ min: 0, max: 0x7f }).map((code) => String.fromCharCode(code)) },
    ),
    { maxLength: 300 },
  )
  .map((chars) => chars.join(""));
const frame = fc.oneof(fc.constant(""), fc.string(), fc.constantFrom('{"a":', "data: é ", "}\n", "\n\n"));
/** Holds a control character other than tab, newline and carriage return. */
const rare = (text: string) => [...text].some((char) => char < " " && !"\t\n\r".includes(char));

describe("asciiJsonBytes", () => {
  it("is the UTF-8 of head + JSON.stringify(text) + tail, or declines text with a rare control character (property)", () => {
    fc.assert(
      fc.property(asciiOutput, frame, frame, (text, head, tail) => {
        const bytes = asciiJsonBytes(head, text, tail);
        assert.equal(bytes === undefined, rare(text));
        if (bytes !== undefined) assert.deepEqual(bytes, expected(head, text, tail));
      }),
      { numRuns: 5000 },
    );
  });

  it("every ASCII character: taken but for the rare control characters, and written as JSON.stringify writes it", () => {
    for (let code = 0; code < 0x80; code++) {
      const text = `a${String.fromCharCode(code)}b`;
      const bytes = asciiJsonBytes("", text, "");
      assert.equal(bytes === undefined, rare(text), `U+${code.toString(16)}`);
      if (bytes) assert.deepEqual(bytes, expected("", text, ""));
    }
  });

  it("a 64 KiB chunk of lines", () => {
    const text = `${"x".repeat(1023)}\n`.repeat(64);
    assert.deepEqual(asciiJsonBytes("[", text, "]"), expected("[", text, "]"));
  });
});

describe("spliceText", () => {
  const large = Buffer.from(`line "${"y".repeat(100)}"\n`.repeat(60));

  it("makes bytes for a part marked ASCII from 4 KiB on, and text below that or unmarked", () => {
    assert.ok(large.length >= BYTES_SPLICED_FROM);
    const text = large.toString();
    const spliced = spliceText("(", withAsciiMark({ text }, large), ")");
    assert.ok(Buffer.isBuffer(spliced));
    assert.deepEqual(spliced, expected("(", text, ")"));
    assert.equal(spliceText("(", { text }, ")"), `(${JSON.stringify(text)})`);
    const small = Buffer.from("small\n");
    assert.equal(spliceText("(", withAsciiMark({ text: "small\n" }, small), ")"), '("small\\n")');
  });

  it("takes the string path for large output that is not ASCII or holds a rare control character", () => {
    for (const odd of ["\u001b[31m", "é", "\u0000"]) {
      const text = `${odd}${large.toString()}`;
      const spliced = spliceText("", withAsciiMark({ text }, Buffer.from(text)), "");
      assert.equal(spliced, JSON.stringify(text));
    }
  });
});

describe("events made from the command's bytes", () => {
  const chunk = `{"level":"info","msg":"a \\"quoted\\" word"}\t${"z".repeat(200)}\r\n`.repeat(40);

  it("a 0.3 event and its notification: bytes, exactly JSON.stringify's", () => {
    const event = eventOf(output(chunk, "stdout", true)) as WireEvent;
    const json = eventJson(event);
    assert.ok(Buffer.isBuffer(json));
    assert.deepEqual(json, Buffer.from(JSON.stringify(event)));
    const notification = { jsonrpc: "2.0", method: "tasks/event", params: event };
    assert.deepEqual(notificationJson(event, "\n"), Buffer.from(`${JSON.stringify(notification)}\n`));
  });

  it("a 1.0 StreamResponse, framed: bytes, exactly JSON.stringify's", () => {
    const response = streamResponseOf(output(chunk, "stderr")) as StreamResponse1;
    const json = streamResponseJson(response, "data: ", "\n\n");
    assert.ok(Buffer.isBuffer(json));
    assert.deepEqual(json, Buffer.from(`data: ${JSON.stringify(response)}\n\n`));
  });

  it("non-ASCII output of the same size stays text, exactly JSON.stringify's", () => {
    const event = eventOf(output(`✓ ${chunk}`)) as WireEvent;
    assert.equal(eventJson(event, "[", "]"), `[${JSON.stringify(event)}]`);
  });
});
