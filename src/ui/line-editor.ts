// The screen's input line (CONTRACT section 6). Its buffer lives here, outside React state: keys that arrive in one
// burst, or a paste, are applied in order at once, so Enter sends what was typed and not what was last drawn.
// Edits go by grapheme (an emoji, a letter with its accents), so no half of a character is ever left behind.
import stringWidth from "string-width";
import { MAX_HITL_ANSWER_BYTES } from "../core/hitl/hitl.js";

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

// Control characters (an answer may hold none: CONTRACT section 4, check 3) and lone surrogates.
// biome-ignore lint/suspicious/noControlCharactersInRegex: the pattern exists to match control characters
const UNTYPABLE = /[\u0000-\u001f\u007f-\u009f]|\p{Cs}/gu;

export class LineEditor {
  private text = "";
  /** The cursor, in UTF-16 code units; always on a grapheme boundary. */
  private at = 0;
  /** The last input ended with a carriage return: a line feed right after it ends no second line. */
  private afterReturn = false;

  constructor(private readonly maxBytes = MAX_HITL_ANSWER_BYTES) {}

  get value(): string {
    return this.text;
  }

  get cursor(): number {
    return this.at;
  }

  /**
   * Typed or pasted text, as a terminal sends it: a line break (`\r`, `\n` or `\r\n`) ends the line, DEL and
   * backspace remove the grapheme before the cursor, a tab becomes a space, other control characters are dropped.
   * Returns the lines it ended, in order; what follows the last line break stays in the buffer.
   */
  type(input: string): string[] {
    const ended: string[] = [];
    let run = "";
    const flush = () => {
      if (run !== "") this.insert(run);
      run = "";
    };
    for (let i = 0; i < input.length; i++) {
      const char = input[i] as string;
      const afterReturn = this.afterReturn;
      this.afterReturn = false;
      if (char === "\r" || char === "\n") {
        if (char === "\n" && afterReturn) continue;
        flush();
        ended.push(this.take());
        this.afterReturn = char === "\r";
      } else if (char === "\u007f" || char === "\b") {
        flush();
        this.backspace();
      } else run += char === "\t" ? " " : char;
    }
    flush();
    return ended;
  }

  /** Inserts text at the cursor, without its control characters, as far as the byte limit allows. */
  insert(input: string): void {
    let clean = input.replace(UNTYPABLE, "");
    const room = this.maxBytes - Buffer.byteLength(this.text);
    if (Buffer.byteLength(clean) > room) {
      let fits = "";
      for (const { segment } of graphemes.segment(clean)) {
        if (Buffer.byteLength(fits + segment) > room) break;
        fits += segment;
      }
      clean = fits;
    }
    if (clean === "") return;
    this.text = this.text.slice(0, this.at) + clean + this.text.slice(this.at);
    this.at = this.snapForward(this.at + clean.length);
  }

  /** Removes the grapheme before the cursor. */
  backspace(): void {
    const start = this.previous(this.at);
    this.text = this.text.slice(0, start) + this.text.slice(this.at);
    this.at = start;
  }

  /** Removes the grapheme under the cursor. */
  deleteForward(): void {
    const end = this.next(this.at);
    this.text = this.text.slice(0, this.at) + this.text.slice(end);
  }

  /** Ctrl-W: removes the word before the cursor, and the spaces after it. */
  deleteWordBackward(): void {
    const before = this.text.slice(0, this.at);
    const start = before.replace(/\S*\s*$/u, "").length;
    this.text = this.text.slice(0, start) + this.text.slice(this.at);
    this.at = start;
  }

  /** Ctrl-U: removes everything before the cursor. */
  deleteToStart(): void {
    this.text = this.text.slice(this.at);
    this.at = 0;
  }

  /** Ctrl-K: removes everything from the cursor on. */
  deleteToEnd(): void {
    this.text = this.text.slice(0, this.at);
  }

  left(): void {
    this.at = this.previous(this.at);
  }

  right(): void {
    this.at = this.next(this.at);
  }

  home(): void {
    this.at = 0;
  }

  end(): void {
    this.at = this.text.length;
  }

  /** The line as it stands, leaving the buffer empty. */
  take(): string {
    const line = this.text;
    this.text = "";
    this.at = 0;
    return line;
  }

  /** The grapheme boundaries of the text, from 0 to its length. */
  private boundaries(): number[] {
    const found = [0];
    for (const { index, segment } of graphemes.segment(this.text)) found.push(index + segment.length);
    return found;
  }

  private previous(at: number): number {
    let before = 0;
    for (const boundary of this.boundaries()) {
      if (boundary >= at) break;
      before = boundary;
    }
    return before;
  }

  private next(at: number): number {
    return this.boundaries().find((boundary) => boundary > at) ?? this.text.length;
  }

  /** `at`, or the next boundary when an insert made it the middle of a grapheme (a combining mark after it). */
  private snapForward(at: number): number {
    return this.boundaries().find((boundary) => boundary >= at) ?? this.text.length;
  }
}

export interface InputView {
  /** The text shown before the cursor, the grapheme under it (a space at the end) and the text after it. */
  before: string;
  under: string;
  after: string;
}

/**
 * What of the line fits in `columns` terminal columns with the cursor in view: one row, so a long answer scrolls
 * sideways instead of growing the live area.
 */
export function inputView(text: string, cursor: number, columns: number): InputView {
  const parts = [...graphemes.segment(text)].map(({ index, segment }) => ({
    index,
    segment,
    width: stringWidth(segment),
  }));
  const at = parts.findIndex((part) => part.index >= cursor);
  const underIndex = at === -1 ? parts.length : at;
  const under = parts[underIndex];
  const budget = Math.max(1, columns) - Math.max(1, under?.width ?? 1);
  const widthAt = (index: number) => parts[index]?.width ?? 0;
  let used = 0;
  let first = underIndex;
  // As much as fits before the cursor, up to two thirds of the row; then the text after it; then more before.
  while (first > 0 && used + widthAt(first - 1) <= Math.floor((budget * 2) / 3)) used += widthAt(--first);
  let last = underIndex + 1;
  while (last < parts.length && used + widthAt(last) <= budget) used += widthAt(last++);
  while (first > 0 && used + widthAt(first - 1) <= budget) used += widthAt(--first);
  const join = (from: number, to: number) =>
    parts
      .slice(from, to)
      .map((part) => part.segment)
      .join("");
  return { before: join(first, underIndex), under: under?.segment ?? " ", after: join(underIndex + 1, last) };
}
