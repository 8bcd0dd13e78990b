// Text on the wire (src/io/wire-encoding.ts): ASCII goes as Latin-1, a copy; anything else as UTF-8. Either way
// the bytes are the UTF-8 of the text.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { asciiText, wireEncoding } from "../../src/io/wire-encoding.js";

describe("wireEncoding", () => {
  it("ASCII is copied as Latin-1; Latin-1 letters, other characters and lone surrogates are encoded", () => {
    assert.equal(wireEncoding(`{"text":"line\\n"}\n`), "latin1");
    assert.equal(wireEncoding(""), "latin1");
    for (const text of ["é", "x\u00ff", "€", "\ud800", "😀"]) assert.equal(wireEncoding(text), "utf8", text);
  });

  it("property: the bytes written are the UTF-8 of the text", () => {
    const text = fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "grapheme-ascii" }), fc.string());
    fc.assert(
      fc.property(text, (value) => {
        assert.deepEqual(Buffer.from(value, wireEncoding(value)), Buffer.from(value, "utf8"));
      }),
      { numRuns: 2000 },
    );
  });

  it("a line its maker knows to be ASCII is written as Latin-1 without a scan, once; an equal text is ASCII too", () => {
    const line = asciiText(`{"text":"${"x".repeat(70_000)}"}\n`);
    assert.equal(wireEncoding(line), "latin1");
    // Forgotten once written: the next text is looked at again.
    assert.equal(wireEncoding("é"), "utf8");
    const again = asciiText(`${"y".repeat(10)}`);
    assert.equal(wireEncoding(`${"y".repeat(5)}${"y".repeat(5)}`), "latin1");
    assert.equal(wireEncoding(again), "latin1");
    asciiText("z");
    assert.equal(wireEncoding("é"), "utf8");
  });
});
