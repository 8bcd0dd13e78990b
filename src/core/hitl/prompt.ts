// A pure prompt detector: fed output as it comes, it says when the last line is a high-confidence prompt.
import { type ScreenLine, screenLines } from "./screen-lines.js";

export const PROMPT_WINDOW_BYTES = 8 * 1024;
export const DEFAULT_SETTLE_MS = 150;
export const MAX_PROMPT_CHARS = 4096;

/** The only markers that make a line a prompt; nothing weaker (`$ `, a bare `?`) ever does. */
export const PROMPT_MARKERS = [
  "[y/N]",
  "[Y/n]",
  "[Y/N]",
  "(y/n)",
  "(yes/no)",
  "Do you want to proceed",
  "Would you like to",
  "Are you sure",
  "Press any key",
  "Press ENTER",
  "press enter",
] as const;

/** How a finished line (a line break after it) must end to be a prompt, trailing spaces aside; an open line need not. */
export const PROMPT_LINE_ENDINGS = ["?", ":", "]", ")", ">"] as const;

/* biome-ignore-start lint/suspicious/noControlCharactersInRegex: these patterns exist to match control characters */
const ESCAPES = new RegExp(
  [
    "\\u001b\\][\\s\\S]*?(?:\\u0007|\\u001b\\\\|\\u009c)", // OSC … BEL or ST
    "\\u009d[\\s\\S]*?(?:\\u0007|\\u001b\\\\|\\u009c)", // 8-bit OSC
    "\\u001b[PX^_][\\s\\S]*?(?:\\u001b\\\\|\\u009c)", // DCS, SOS, PM, APC … ST
    "[\\u0090\\u0098\\u009e\\u009f][\\s\\S]*?(?:\\u001b\\\\|\\u009c)", // their 8-bit forms
    "(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]", // CSI
    // nF sequences, then the two-byte Fp, Fe and Fs ones; not the introducers [ ] P X ^ _ handled above.
    "\\u001b(?:[ -/]+[0-~]|[0-OQ-WYZ\\\\`-~])",
  ].join("|"),
  "g",
);
/** An escape sequence cut off at the end of what has arrived so far. */
const UNFINISHED_ESCAPE = /(?:\u001b(?:\[[0-?]*[ -/]*|\][\s\S]*|[PX^_][\s\S]*|[ -/]*)?|\u009b[0-?]*[ -/]*)$/;
const OTHER_CONTROLS = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
/* biome-ignore-end lint/suspicious/noControlCharactersInRegex: these patterns exist to match control characters */

/** Text with ANSI/VT escape sequences removed, control characters left as they are. */
function stripSequences(text: string): string {
  return text.replace(ESCAPES, "").replace(UNFINISHED_ESCAPE, "");
}

/** Text with ANSI/VT escape sequences and other control characters (but tab and line breaks) removed. */
export function stripEscapes(text: string): string {
  return stripSequences(text).replace(OTHER_CONTROLS, "");
}

/** The last line a terminal would show something on, or undefined (src/core/hitl/screen-lines.ts). */
export function lastShownLine(text: string): ScreenLine | undefined {
  const lines = screenLines(stripSequences(text));
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i] as ScreenLine;
    if (line.shown.trim() !== "") return line;
  }
  return undefined;
}

function hasMarker(line: string): boolean {
  return PROMPT_MARKERS.some((marker) => line.includes(marker));
}

/**
 * The prompt that `text` ends with, if any (CONTRACT section 4): the last line a terminal shows something on, when
 * the text written last on it holds a marker (text overwritten, or written over since, is never a prompt) and the
 * line is still open or ends like a question. A finished log line that merely mentions a marker is no prompt.
 */
function promptIn(text: string): string | undefined {
  const line = lastShownLine(text);
  if (line === undefined || !hasMarker(line.latest)) return undefined;
  const shown = line.shown.trim();
  if (!line.open && !PROMPT_LINE_ENDINGS.some((ending) => shown.endsWith(ending))) return undefined;
  return shown.length > MAX_PROMPT_CHARS ? shown.slice(shown.length - MAX_PROMPT_CHARS) : shown;
}

/** Keeps the last `limit` UTF-8 bytes of text (a character cut in half at the start is dropped). */
export function lastBytes(text: string, limit: number): string {
  if (text.length <= limit / 3 || Buffer.byteLength(text) <= limit) return text;
  const buffer = Buffer.from(text);
  let start = buffer.length - limit;
  while (start < buffer.length && ((buffer[start] as number) & 0xc0) === 0x80) start++;
  return buffer.subarray(start).toString();
}

export interface DetectorOptions {
  settleMs?: number;
  windowBytes?: number;
}

/**
 * Feed it decoded output of both streams in arrival order, with the time it arrived; ask it with `due(now)`.
 * It keeps only the most recent window, and raises a given prompt once, after output has been quiet long enough.
 */
export class PromptDetector {
  readonly settleMs: number;
  private readonly windowBytes: number;
  private window = "";
  private lastOutputAt = Number.NEGATIVE_INFINITY;
  private raised = false;

  constructor(options: DetectorOptions = {}) {
    this.settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
    this.windowBytes = options.windowBytes ?? PROMPT_WINDOW_BYTES;
  }

  feed(text: string, now: number): void {
    if (text === "") return;
    this.window = lastBytes(this.window + text, this.windowBytes);
    this.lastOutputAt = now;
    this.raised = false;
  }

  /** The prompt to raise now, if the output has settled on one that was not raised yet. */
  due(now: number): string | undefined {
    if (this.raised || now - this.lastOutputAt < this.settleMs) return undefined;
    const prompt = promptIn(this.window);
    if (prompt !== undefined) this.raised = true;
    return prompt;
  }

  /** How long until output has been quiet for the settle window (0 once it has). */
  quietInMs(now: number): number {
    return Math.max(0, this.settleMs - (now - this.lastOutputAt));
  }

  /** After an answer only new output counts. */
  reset(): void {
    this.window = "";
    this.raised = false;
    this.lastOutputAt = Number.NEGATIVE_INFINITY;
  }

  get bufferedBytes(): number {
    return Buffer.byteLength(this.window);
  }
}
