// Lines from a stream, bounded: at most `maxLineChars` a line (longer ones are cut) and `maxQueued` lines waiting.
import type { Readable } from "node:stream";

export class LineReader {
  private readonly lines: string[] = [];
  private partial = "";
  private waiting: ((line: string | undefined) => void) | undefined;
  private ended = false;

  constructor(
    private readonly input: Readable,
    private readonly maxLineChars = 64 * 1024,
    private readonly maxQueued = 64,
  ) {
    input.setEncoding("utf8");
    input.on("data", (text: string) => this.take(text));
    input.on("end", () => this.finish());
    input.on("error", () => this.finish());
  }

  /** The next line, or undefined once the input has ended. */
  next(): Promise<string | undefined> {
    const line = this.lines.shift();
    if (this.lines.length < this.maxQueued) this.input.resume();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  close(): void {
    this.input.removeAllListeners("data");
    this.input.pause();
    if ("destroy" in this.input) this.input.destroy();
    this.finish();
  }

  private take(text: string): void {
    const pieces = (this.partial + text).split("\n");
    this.partial = pieces.pop() ?? "";
    if (this.partial.length > this.maxLineChars) this.partial = this.partial.slice(0, this.maxLineChars);
    for (const piece of pieces) this.push(piece.replace(/\r$/, "").slice(0, this.maxLineChars));
    if (this.lines.length >= this.maxQueued) this.input.pause();
  }

  private push(line: string): void {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting(line);
    } else this.lines.push(line);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.partial !== "") this.push(this.partial);
    this.partial = "";
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(undefined);
  }
}
