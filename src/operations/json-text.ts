// An operation's result that is JSON text already. Every binding writes it into its answer as it is, instead of encoding
// an object again (an ended task read over and over: src/operations/ended-task-texts.ts).

/** A text made on demand is kept once made when it is at most this long (UTF-16 units). */
export const HELD_TEXT_UNITS = 64 * 1024;

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
    // later, and 30 answers of 8 MiB held between the two would be 240 MiB (src/jsonrpc/bounded-answers.ts).
    if (text.length <= HELD_TEXT_UNITS) this.source = text;
    return text;
  }

  /** For a writer that does not know this class: the same JSON, the slow way. */
  toJSON(): unknown {
    return JSON.parse(this.text);
  }
}

/** A value as JSON text, a JsonText as the text it holds. */
export function valueJson(value: unknown): string {
  return value instanceof JsonText ? value.text : JSON.stringify(value);
}
