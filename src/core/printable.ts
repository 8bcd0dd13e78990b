// Text from a file or a request, made safe to print for a person: no input can drive the user's terminal
// (CONTRACT section 2; docs/security.md, "Terminal escapes in input").

/**
 * Control characters (C0, DEL, C1: an ESC or a CSI starts a terminal command, a CR rewrites the line) and the
 * bidirectional overrides (which reorder what is shown, so a line can read differently from what it holds).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** `text` with every control character written as an escape (`\u001b`), as JSON would write it. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, escaped);
}

const C1 = /[\u0080-\u009f]/g;

/**
 * JSON text with the C1 controls (U+0080–U+009F) written as escapes too: JSON.stringify leaves them as they are, and
 * a terminal that shows the JSON may act on them (8-bit CSI, OSC). The value the JSON holds is the same.
 */
export function jsonWithoutC1(json: string): string {
  return json.replace(C1, escaped);
}

/** The same for JSON as UTF-8 bytes, where a C1 control is the two bytes 0xC2 0x80–0x9F. */
export function jsonBytesWithoutC1(json: Buffer): Buffer {
  let at = json.indexOf(0xc2);
  if (at < 0) return json;
  const parts: Buffer[] = [];
  let from = 0;
  while (at >= 0 && at + 1 < json.length) {
    const next = json[at + 1] as number;
    if (next >= 0x80 && next <= 0x9f) {
      parts.push(json.subarray(from, at), Buffer.from(`\\u00${next.toString(16)}`));
      from = at + 2;
    }
    at = json.indexOf(0xc2, at + 1);
  }
  if (from === 0) return json;
  parts.push(json.subarray(from));
  return Buffer.concat(parts);
}
