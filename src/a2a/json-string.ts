// Output text as a JSON string, the same text JSON.stringify gives, made faster for command output (large output is
// escaped from its bytes instead: src/a2a/output-json.ts). A chunk is almost all text, and on Node 20
// JSON.stringify escapes a long string at about 500 MiB/s, a regex replace at about 700 MiB/s; replaceAll, includes
// and Buffer.indexOf with one character run at memchr speed (docs/benchmarks.md).

/** What JSON.stringify writes for each character it must escape (control characters, `"` and `\`). */
const ESCAPES: readonly string[] = Array.from({ length: 0x5d }, (_, code) =>
  JSON.stringify(String.fromCharCode(code)).slice(1, -1),
);
/** U+0000–U+001F, `"` and `\`, written as "anything but the rest": V8 scans a negated class about 1.3 × faster. */
const MUST_ESCAPE = /[^\u0020\u0021\u0023-\u005b\u005d-\uffff]/g;
/** The characters output rarely holds: the control characters but tab, newline and carriage return. */
const RARE = Array.from({ length: 0x20 }, (_, code) => String.fromCharCode(code)).filter((c) => !"\t\n\r".includes(c));

const escapeOne = (char: string) => ESCAPES[char.charCodeAt(0)] as string;

/** `JSON.stringify(text)`, faster on long strings. */
export function jsonString(text: string): string {
  // A lone surrogate is written as a \u escape, which neither way below looks for; such text is rare.
  if (!text.isWellFormed()) return JSON.stringify(text);
  if (RARE.some((char) => text.includes(char))) return `"${text.replace(MUST_ESCAPE, escapeOne)}"`;
  // The usual text: five characters to escape, each replaced at memchr speed (the backslash first).
  const escaped = text
    .replaceAll("\\", "\\\\")
    .replaceAll('"', '\\"')
    .replaceAll("\n", "\\n")
    .replaceAll("\r", "\\r")
    .replaceAll("\t", "\\t");
  return `"${escaped}"`;
}

/** JSON text as it goes on the wire: a string, or its UTF-8 bytes when it was made from the command's bytes. */
export type WireJson = string | Buffer;
