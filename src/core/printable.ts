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
