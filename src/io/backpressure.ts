// Writes to consumers that may be slow: while any of them is full, the dispatcher stops reading children's output.
import type { Writable } from "node:stream";
import { wireEncoding } from "./wire-encoding.js";

export interface Throttle {
  pauseOutput(): void;
  resumeOutput(): void;
}

export class FlowControl {
  private readonly full = new Set<Writable>();
  /** One wait per full stream, shared by everyone waiting: listeners stay one per stream however many wait. */
  private readonly waits = new Map<Writable, Promise<void>>();

  constructor(private readonly throttle: Throttle) {}

  write(stream: Writable, data: string | Uint8Array): void {
    if (stream.destroyed || stream.writableEnded) return;
    const written = typeof data === "string" ? stream.write(data, wireEncoding(data)) : stream.write(data);
    if (written || this.full.has(stream)) return;
    this.full.add(stream);
    if (this.full.size === 1) this.throttle.pauseOutput();
    const release = () => {
      stream.off("drain", release);
      stream.off("close", release);
      this.full.delete(stream);
      if (this.full.size === 0) this.throttle.resumeOutput();
    };
    stream.on("drain", release);
    stream.on("close", release);
  }

  /** Some stream is full: its reader has not taken what was written. */
  get isFull(): boolean {
    return this.full.size > 0;
  }

  /** Resolves once everything written so far has been handed on. */
  async drained(): Promise<void> {
    while (this.full.size > 0) {
      const [stream] = this.full;
      const target = stream as Writable;
      let wait = this.waits.get(target);
      if (!wait) {
        wait = drainOrClose(target).finally(() => this.waits.delete(target));
        this.waits.set(target, wait);
      }
      await wait;
    }
  }
}

/** Resolves at the stream's next `drain` or `close`, whichever comes first, and leaves no listener behind. */
export function drainOrClose(stream: NodeJS.WritableStream | Writable): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
