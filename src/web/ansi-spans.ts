// One output line as spans of text with CSS classes (CONTRACT section 10: colours shown, never interpreted as
// markup). The text only ever becomes DOM text nodes; colours become class names, never style attributes (the
// page's CSP allows none). What a terminal would act on but a page cannot show is removed (OSC titles and links,
// cursor moves, screen clears) or shown escaped (other control characters), as `printable` does for the terminal.
// Pure, so it is tested without a browser.
import Anser from "anser";

export interface Span {
  text: string;
  /** Space-separated class names, "" for plain text. */
  className: string;
}

/* biome-ignore-start lint/suspicious/noControlCharactersInRegex: control sequences are what these find */
// OSC (ESC ] … BEL or ESC \), also unfinished to the end of the line: titles, hyperlinks (OSC 8).
const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\|$)/g;
// 8-bit CSI as its 7-bit form, so that one rule follows.
const CSI8 = /\u009b/g;
// CSI sequences other than SGR (cursor moves, clears), and two-character escapes.
const OTHER_CSI = /\u001b\[[0-?]*[ -/]*[@-l n-~]|\u001b[@-Z\\^_]|\u001b[ -/][0-~]?/g;
// Control characters other than ESC and TAB, and C1 controls.
const CONTROL = /[\u0000-\u0008\u000a-\u001a\u001c-\u001f\u007f-\u009f]/g;
const STRAY_ESC = /\u001b/g;
/* biome-ignore-end lint/suspicious/noControlCharactersInRegex: control sequences are what these find */

const escaped = (char: string) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`;

/** What a terminal would show of a line with carriage returns: each part overwrites the start of the one before. */
export function overwrite(line: string): string {
  if (line.indexOf("\r") < 0) return line;
  const parts = line.split("\r");
  // With escape sequences, columns cannot be told apart from bytes: the last non-empty part is shown.
  if (line.indexOf("\u001b") >= 0) return [...parts].reverse().find((part) => part !== "") ?? "";
  let shown = "";
  for (const part of parts) shown = part + shown.slice(part.length);
  return shown;
}

/** The line with only SGR sequences left, and every other control character shown as `\uXXXX`. */
export function cleanLine(line: string): string {
  return overwrite(line).replace(OSC, "").replace(CSI8, "\u001b[").replace(OTHER_CSI, "").replace(CONTROL, escaped);
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: a line without control characters needs no parsing
const PLAIN = /^[^\u001b\u0000-\u0008\u000a-\u001f\u007f-\u009f]*$/;

/** The spans of one line; `sgr` is the colour state the line starts in (src/web/output-lines.ts). */
export function ansiSpans(line: string, sgr = ""): Span[] {
  if (sgr === "" && PLAIN.test(line)) return line === "" ? [] : [{ text: line, className: "" }];
  const entries = Anser.ansiToJson(sgr + cleanLine(line), { use_classes: true, remove_empty: true });
  const spans: Span[] = [];
  for (const entry of entries) {
    const text = entry.content.replace(STRAY_ESC, escaped);
    if (text === "") continue;
    const classes: string[] = [];
    const fg = colourClass(entry.fg, entry.fg_truecolor);
    const bg = colourClass(entry.bg, entry.bg_truecolor);
    if (fg) classes.push(`${fg}-fg`);
    if (bg) classes.push(`${bg}-bg`);
    for (const decoration of entry.decorations ?? []) classes.push(`ansi-${decoration}`);
    spans.push({ text, className: classes.join(" ") });
  }
  return spans;
}

/** anser's class name for a colour; a true colour is drawn as the nearest of the 256-colour palette. */
function colourClass(name: string | null, truecolor: string | null): string | undefined {
  if (!name) return undefined;
  if (name !== "ansi-truecolor") return name;
  const [r, g, b] = (truecolor ?? "").split(",").map((part) => Number(part.trim()));
  if (![r, g, b].every((value) => Number.isFinite(value))) return undefined;
  const level = (value: number) => Math.max(0, Math.min(5, Math.round(((value as number) / 255) * 5)));
  return `ansi-palette-${16 + 36 * level(r as number) + 6 * level(g as number) + level(b as number)}`;
}
