// An operation's result that is JSON text already. Every binding writes it into its answer as it is, instead of encoding
// an object again (an ended task read over and over: src/operations/ended-task-texts.ts).

/**
 * The one policy for answers' text held between being made and being written: an answer's JSON longer than this is
 * not held (a batch measures its answers first and writes them later), but let go and made again when written, so a
 * batch of large answers holds their results (which share a task's output), never 8 × --max-output-bytes of JSON
 * at once. Counted as a string's length (UTF-16 units, what it holds in memory) or its UTF-8 bytes, never fewer.
 */
export const MAX_HELD_TEXT = 64 * 1024;

export class JsonText {
  private source: string | (() => string);

  /** The text, or what makes it when it is first written (a large answer is not held as text before it is due). */
  constructor(source: string | (() => string)) {
    this.source = source;
  }

  get text(): string {
    if (typeof this.source === "string") return this.source;
    const text = this.source();
    // A large text is made again at each read instead of held: a batch measures its answers first and writes them
    // later, and 30 answers of 8 MiB held between the two would be 240 MiB (MAX_HELD_TEXT).
    if (text.length <= MAX_HELD_TEXT) this.source = text;
    return text;
  }

  /**
   * The UTF-8 bytes of `text`, this JsonText's text as the caller just read it: measured once while the text is held
   * (a kept answer is not measured at every write), and never made a second time to be measured.
   */
  bytesOf(text: string): number {
    if (this.measured !== undefined) return this.measured;
    const bytes = Buffer.byteLength(text, "utf8");
    if (this.source === text) this.measured = bytes;
    return bytes;
  }

  private measured: number | undefined;

  /** For a writer that does not know this class: the same JSON, the slow way. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A value as JSON text, a JsonText as the text it holds. */
export function valueJson(value: unknown): string {
  return value instanceof JsonText ? value.text : JSON.stringify(value);
}
