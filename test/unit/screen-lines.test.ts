// What a terminal shows (CONTRACT section 4): backspace and a lone carriage return move the cursor back, what
// follows overwrites, and each line knows the run written last.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type ScreenLine, screenLines } from "../../src/core/hitl/screen-lines.js";

const line = (shown: string, latest: string, open: boolean): ScreenLine => ({ shown, latest, open });

describe("screenLines", () => {
  it("splits on line feeds; the last line is open, the others finished", () => {
    assert.deepEqual(screenLines("a\nb"), [line("a", "a", false), line("b", "b", true)]);
    assert.deepEqual(screenLines("a\n"), [line("a", "a", false), line("", "", true)]);
    assert.deepEqual(screenLines(""), [line("", "", true)]);
  });

  it("CRLF is one line break", () => {
    assert.deepEqual(screenLines("a\r\nb\r\n"), [line("a", "a", false), line("b", "b", false), line("", "", true)]);
  });

  it("a lone carriage return goes back to column 0 and what follows overwrites", () => {
    assert.deepEqual(screenLines("10%\r100%"), [line("100%", "100%", true)]);
    assert.deepEqual(screenLines("loading...\rok"), [line("okading...", "ok", true)]);
  });

  it("a backspace moves back one character (never before column 0)", () => {
    assert.deepEqual(screenLines("abc\bX"), [line("abX", "X", true)]);
    assert.deepEqual(screenLines("a\b\b\bZ"), [line("Z", "Z", true)]);
    assert.deepEqual(screenLines("a😀\bb"), [line("ab", "b", true)]);
  });

  it("moving back without writing leaves the last run as it was", () => {
    assert.deepEqual(screenLines("one\rtwo\b\b"), [line("two", "two", true)]);
  });

  it("erasing with backspace-space-backspace leaves blanks", () => {
    assert.deepEqual(screenLines(`abc${"\b \b".repeat(3)}`), [line("   ", " ", true)]);
  });

  it("other control characters are not shown; tab is", () => {
    assert.deepEqual(screenLines("a\x07b\x00c\x7fd\x85e\tf"), [line("abcde\tf", "abcde\tf", true)]);
  });

  it("property: text without backspaces or carriage returns shows as it is, line by line", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "é", "😀", " ", "\n", "?") }), (text) => {
        const lines = screenLines(text);
        assert.deepEqual(
          lines.map((one) => one.shown),
          text.split("\n"),
        );
        for (const one of lines) assert.equal(one.latest, one.shown);
      }),
    );
  });
});
