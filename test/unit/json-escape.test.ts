// The WebAssembly escaper: the module in the repo is what its source assembles to, and for any valid UTF-8 it writes
// exactly the UTF-8 of what JSON.stringify writes between its quotes.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import fc from "fast-check";
import { assemble, WASM_DIR } from "../../scripts/wasm.js";
import { escapedAscii, escapedLine, MAX_ESCAPED_INPUT } from "../../src/wasm/json-escape.js";
import { WASM } from "../../src/wasm/json-escape-binary.js";

/** The UTF-8 of what JSON.stringify writes between the quotes. */
const expected = (text: string) => Buffer.from(JSON.stringify(text).slice(1, -1));
const escaped = (data: Uint8Array) => escapedLine(data, () => ({ head: "", tail: "" }));

/** Text that looks like command output, with every kind of character the escaper treats apart. */
const outputLike = fc
  .array(
    fc.oneof(
      { weight: 10, arbitrary: fc.constantFrom("ok", " ", "done 42", "x".repeat(40)) },
      { weight: 4, arbitrary: fc.constantFrom("\n", "\r\n", "\t", '"', "\\", "\u001b[31m", "\b", "\f", "\u0000") },
      { weight: 2, arbitrary: fc.constantFrom("é", "✓", "😀", "\u2028", "\u007f", "\u0080", "\uffff") },
      { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
    ),
    { maxLength: 200 },
  )
  .map((pieces) => pieces.join(""));

describe("escapedLine", () => {
  it("the module in the repo is what src/wasm/json-escape.wat assembles to (npm run wasm)", async () => {
    const source = readFileSync(join(WASM_DIR, "json-escape.wat"), "utf8");
    assert.equal(await assemble(source, "json-escape.wat"), WASM);
  });

  it("is JSON.stringify's text for every code point from U+0000 to U+00FF, and around a 16-byte block", () => {
    for (let code = 0; code <= 0xff; code++) {
      const char = String.fromCharCode(code);
      // Alone, and at every place in a 16-byte block and past it, so both the block and the byte path see it.
      for (const text of [char, ...Array.from({ length: 33 }, (_, at) => `${"a".repeat(at)}${char}${"b".repeat(40)}`)])
        assert.deepEqual(escaped(Buffer.from(text)), expected(text), `U+${code.toString(16)} in ${text.length}`);
    }
  });

  it("is JSON.stringify's text for any well-formed text (property)", () => {
    fc.assert(
      fc.property(outputLike, (text) => {
        assert.deepEqual(escaped(Buffer.from(text)), expected(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("a 64 KiB chunk of lines, and inputs of every length up to 100 bytes", () => {
    const chunk = `${"x".repeat(1023)}\n`.repeat(64);
    assert.deepEqual(escaped(Buffer.from(chunk)), expected(chunk));
    for (let length = 0; length <= 100; length++) {
      const text = 'a"\\\n\tb'.repeat(20).slice(0, length);
      assert.deepEqual(escaped(Buffer.from(text)), expected(text), `length ${length}`);
    }
  });

  it("frames the bytes, asks for the frame only for input it escapes, and hands out a copy, not its memory", () => {
    let asked = 0;
    const around = () => {
      asked += 1;
      return { head: "«", tail: "»\n" };
    };
    const first = escapedLine(Buffer.from('say "hi"'), around);
    assert.equal(first?.toString(), '«say \\"hi\\"»\n');
    assert.equal(escapedLine(Buffer.from([0xff]), around), undefined);
    assert.equal(asked, 1);
    escapedLine(Buffer.from("x".repeat(1000)), around);
    assert.equal(first?.toString(), '«say \\"hi\\"»\n', "a later call left the first line as it was");
  });

  it("reads a view of any offset in its buffer", () => {
    const bytes = Buffer.from(`__${'say "hi"\n'.repeat(10)}__`);
    const view = bytes.subarray(2, bytes.length - 2);
    assert.deepEqual(escaped(view), expected(view.toString()));
  });

  it("escapedAscii: JSON.stringify's text of ASCII as a string, right across growths of the module's memory", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", " ", "\n", "\t", '"', "\\", "\u001b", "\u0000", "\u007f", "{") }),
        (text) => assert.equal(escapedAscii(Buffer.from(text)), JSON.stringify(text).slice(1, -1)),
      ),
      { numRuns: 1000 },
    );
    // Each larger input grows the memory, which detaches every view of it made before.
    for (const size of [10, 100_000, 300_000, MAX_ESCAPED_INPUT]) {
      const text = 'a "b"\n'.repeat(size / 7);
      assert.equal(escapedAscii(Buffer.from(text)), JSON.stringify(text).slice(1, -1), `${size} bytes`);
    }
  });

  it("escapedAscii with a head and a tail: the whole line as one string, right across growths; not for non-ASCII ones", () => {
    const around = { head: '{"text":"', tail: '"}\n' };
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom("a", "\n", '"', "\\", "\u001b", "\u0000") }),
        fc.string({ unit: "grapheme-ascii" }),
        fc.string({ unit: "grapheme-ascii" }),
        (text, head, tail) => {
          const expected = `${head}${JSON.stringify(text).slice(1, -1)}${tail}`;
          assert.equal(escapedAscii(Buffer.from(text), { head, tail }), expected);
        },
      ),
      { numRuns: 500 },
    );
    for (const size of [10, 500_000, MAX_ESCAPED_INPUT]) {
      const text = 'a "b"\n'.repeat(size / 7);
      const line = escapedAscii(Buffer.from(text), around);
      assert.equal(line, `${around.head}${JSON.stringify(text).slice(1, -1)}${around.tail}`, `${size} bytes`);
    }
    for (const odd of [
      { head: "é", tail: "" },
      { head: "", tail: "\u20ac" },
      { head: "\ud800", tail: "" },
    ])
      assert.equal(escapedAscii(Buffer.from("plain"), odd), undefined, JSON.stringify(odd));
  });

  it("declines bytes that are not valid UTF-8 (their text has U+FFFD) and input over its limit", () => {
    for (const bad of [[0xff], [0x61, 0xc3], [0xed, 0xa0, 0x80], [0xc0, 0xaf]])
      assert.equal(escaped(Buffer.from(bad)), undefined, Buffer.from(bad).toString("hex"));
    assert.equal(escaped(Buffer.alloc(MAX_ESCAPED_INPUT + 1, 0x61)), undefined);
    assert.deepEqual(escaped(Buffer.alloc(MAX_ESCAPED_INPUT, 0x61)), Buffer.alloc(MAX_ESCAPED_INPUT, 0x61));
  });

  it("without WebAssembly (node --jitless) it declines, and large output is written as text, the same JSON", () => {
    const script = `
      const { escapedLine } = await import("./src/wasm/json-escape.ts");
      const { encode03 } = await import("./src/a2a/wire/encode.ts");
      const { eventOf } = await import("./src/a2a/v0_3/codec.ts");
      const text = 'say "hi"\\n'.repeat(1000);
      const data = Buffer.from(text);
      const event = { type: "output", taskId: "t", contextId: "c", stream: "stdout", seq: 1, text, data, raw: data, first: true };
      const written = encode03(event, { head: "", tail: "" });
      console.log(JSON.stringify({
        declined: escapedLine(data, () => ({ head: "", tail: "" })) === undefined,
        text: typeof written === "string",
        same: String(written) === JSON.stringify(eventOf(event)),
      }));`;
    const out = execFileSync(process.execPath, ["--jitless", "--import", "tsx", "--input-type=module", "-e", script], {
      cwd: join(WASM_DIR, "..", ".."),
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    assert.deepEqual(JSON.parse(out.trim().split("\n").at(-1) as string), { declined: true, text: true, same: true });
  });
});
