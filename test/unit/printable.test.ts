// CONTRACT section 2: every value taken from a file or a request and printed for a person shows control
// characters escaped, so no input can drive the user's terminal (retitle it, clear it, fake a "valid" line).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { type FileVerdict, formatVerdict } from "../../src/commands/validate.js";
import { printable } from "../../src/core/printable.js";
import type { Paint } from "../../src/ui/paint.js";

/** What must never reach the terminal from input: C0, DEL, C1 and the bidirectional overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

const plain: Paint = {
  red: (t) => t,
  green: (t) => t,
  yellow: (t) => t,
  cyan: (t) => t,
  dim: (t) => t,
  bold: (t) => t,
};
/** The colours `paintFor` uses on a terminal: the only escapes the output may hold are these. */
const SGR = (code: number) => (t: string) => `\u001b[${code}m${t}\u001b[0m`;
const coloured: Paint = { red: SGR(31), green: SGR(32), yellow: SGR(33), cyan: SGR(36), dim: SGR(2), bold: SGR(1) };
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing our own colour codes
const withoutColours = (text: string) => text.replace(/\u001b\[\d+m/g, "");

describe("printable", () => {
  it("writes control characters as JSON writes them", () => {
    assert.equal(printable("a\u001b]0;title\u0007b"), "a\\u001b]0;title\\u0007b");
    assert.equal(printable("\r\n\t\u0000\u007f"), "\\u000d\\u000a\\u0009\\u0000\\u007f");
  });
  it("escapes C1 controls (U+009B is a CSI on many terminals) and bidirectional overrides", () => {
    assert.equal(printable("\u009b31m"), "\\u009b31m");
    assert.equal(printable("abc\u202edef"), "abc\\u202edef");
  });
  it("leaves other text alone: accents, emoji, CJK, backslashes", () => {
    const text = "é 😀 日本語 \\u001b ~/x";
    assert.equal(printable(text), text);
  });
});

describe("validate's human output, by property", () => {
  const anyText = fc.string({ unit: "binary", maxLength: 40 });
  const hostile = fc.oneof(
    anyText,
    fc.constantFrom("\u001b]0;pwned\u0007", "\u001b[2J\u001b[H", "\rvalid    x.json", "\u009b31m", "a\u202eb", "\n"),
  );
  const problem = fc.record({
    path: fc.oneof(
      anyText,
      hostile.map((key) => `/message/metadata/${key}`),
    ),
    code: hostile,
    message: hostile,
    line: fc.option(fc.nat(), { nil: undefined }),
    column: fc.option(fc.nat(), { nil: undefined }),
  });
  const verdict: fc.Arbitrary<FileVerdict> = fc.record({
    file: hostile,
    valid: fc.boolean(),
    dispatch: fc.constantFrom("adapter-command" as const, "echo" as const, null),
    errors: fc.array(problem, { maxLength: 3 }),
    warnings: fc.array(problem, { maxLength: 3 }),
    envelope: fc.option(
      fc.record({
        adapter: hostile,
        mode: hostile,
        command: fc.array(hostile, { maxLength: 4 }),
        working_dir: hostile,
        timeout_seconds: fc.nat(),
      }),
      { nil: undefined },
    ),
  }) as fc.Arbitrary<FileVerdict>;

  it("generated values never put a control character on the terminal (3000 runs)", () => {
    fc.assert(
      fc.property(verdict, (v) => {
        for (const [name, paint] of [
          ["plain", plain],
          ["coloured", coloured],
        ] as const) {
          const lines = withoutColours(formatVerdict(v, paint)).split("\n");
          // One line for the file, one for each problem: nothing from the input adds or rewrites a line.
          assert.equal(lines.length, 1 + v.errors.length + v.warnings.length, `${name}: ${JSON.stringify(lines)}`);
          for (const line of lines) assert.doesNotMatch(line, UNSAFE, `${name}: ${JSON.stringify(line)}`);
        }
      }),
      { numRuns: 3000, includeErrorInReport: true },
    );
  });
});
