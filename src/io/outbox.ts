// What the bridge writes to stdout, in order. While the client is not reading, lines wait here, and an answer waits
// as the object it is, encoded only when its turn comes: 100 `tasks/get` of a task with 8 MiB of output share that
// output until then, instead of becoming 100 strings of 8 MiB at once.
import type { Writable } from "node:stream";
import type { FlowControl } from "./backpressure.js";

/**
 * A line to write (with its newline) as text or bytes, or how to make it when its turn comes: as one text, or as the
 * pieces a large answer is made of, written one after another and never joined into one more copy.
 */
export type OutLine = string | Buffer | (() => string | readonly string[]);

export class Outbox {
  private readonly waiting: OutLine[] = [];

  constructor(
    private readonly stream: Writable,
    private readonly flow: FlowControl,
  ) {}

  push(line: OutLine): void {
    this.waiting.push(line);
    this.flush();
  }

  /** Writes what waits, for as long as the stream takes it; call again when the stream has drained. */
  flush(): void {
    // A stream that is gone takes nothing more: what waits is dropped, not encoded for nobody.
    if (this.stream.destroyed || this.stream.writableEnded) {
      this.waiting.length = 0;
      return;
    }
    while (this.waiting.length > 0 && !this.flow.isFull) {
      const line = this.waiting.shift() as OutLine;
      const made = typeof line === "function" ? line() : line;
      if (typeof made === "string" || Buffer.isBuffer(made)) this.flow.write(this.stream, made);
      else for (const piece of made) this.flow.write(this.stream, piece);
    }
  }

  /** Resolves once every line pushed so far has been handed on. */
  async drained(): Promise<void> {
    while (this.waiting.length > 0 || this.flow.isFull) {
      await this.flow.drained();
      this.flush();
    }
  }
}
