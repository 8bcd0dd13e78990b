// The watchdog's reading of the lines src/core/containment/watchdog.ts writes: one JSON message a line, each line
// bounded. In a file of its own so that the watchdog process loads nothing else of the tool (docs/architecture.md).
import type { WatchdogMessage } from "./watchdog.js";

/** The longest message line the watchdog reads (a trace is a few hundred bytes); a longer line is skipped whole. */
export const MAX_WATCHDOG_LINE_BYTES = 64 * 1024;

/** Messages from the bytes of the watchdog's stdin. */
export class WatchdogMessages {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;

  /** The messages this chunk completes; lines that are too long or not JSON are dropped (only the tool writes here). */
  push(chunk: Buffer): WatchdogMessage[] {
    const messages: WatchdogMessage[] = [];
    for (let start = 0; start < chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, newline === -1 ? chunk.length : newline);
      this.size += piece.length;
      if (this.size > MAX_WATCHDOG_LINE_BYTES) this.skipping = true;
      if (!this.skipping) this.parts.push(piece);
      if (newline === -1) break;
      if (!this.skipping) {
        try {
          messages.push(JSON.parse(Buffer.concat(this.parts).toString("utf8")) as WatchdogMessage);
        } catch {
          // Not a message the tool wrote: ignored.
        }
      }
      this.parts = [];
      this.size = 0;
      this.skipping = false;
      start = newline + 1;
    }
    return messages;
  }
}
