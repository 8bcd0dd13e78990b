// When a command's streams may be given up after it exited (CONTRACT 3.3: every byte of output reaches the task;
// docs/security.md "Output after the exit"). What the command wrote before it exited is still in its pipes and is
// read to the end, however long the reader was starved: while the streams are paused (backpressure) nothing counts,
// and a pipe is only called held open once a turn of the event loop has read nothing from it. Only a process no
// guard finds can hold a pipe open once the task's processes are gone; for that case there are bounds, and the task
// says which streams it gave up.
import { readFileSync } from "node:fs";

/** How long an open pipe may bring nothing, while it is read, before it counts as held open. */
export const IDLE_MS = 2000;
/** At shutdown (5 s in all, CONTRACT 5.5): what a killed command left in its pipes comes at once, or never. */
const HURRIED_IDLE_MS = 300;
/** How often a paused drain looks again. */
const PAUSED_POLL_MS = 100;

/** The most a pipe can hold unread (Linux: /proc/sys/fs/pipe-max-size): more after the exit means a writer lives on. */
export function pipeCapacity(): number {
  if (capacity === undefined) {
    capacity = 1024 * 1024; // not Linux: the default size
    try {
      const size = Number(readFileSync("/proc/sys/fs/pipe-max-size", "utf8"));
      if (Number.isSafeInteger(size) && size > 0) capacity = size;
    } catch {
      // no /proc
    }
  }
  return capacity;
}
let capacity: number | undefined;

export class OutputDrain {
  private lastRead = 0;
  private bytesAfterExit = 0;
  private paused = false;
  private lookedAgain = false;
  private hurried = false;

  /**
   * `deadline`: the task's deadline (performance.now() time), which still holds after the exit; `capacity`: bytes
   * the pipes of both streams hold together.
   */
  constructor(
    private readonly deadline: number,
    private readonly capacity: number,
    private readonly idleMs = IDLE_MS,
  ) {}

  exited(now: number): void {
    this.lastRead = now;
  }

  read(bytes: number, now: number): void {
    this.bytesAfterExit += bytes;
    this.lastRead = now;
    this.lookedAgain = false;
  }

  pause(): void {
    this.paused = true;
  }

  resume(now: number): void {
    if (this.paused) this.lastRead = now;
    this.paused = false;
  }

  /** The tool shuts down: a paused stream is given up at once, a flowing one after HURRIED_IDLE_MS without data. */
  hurry(): void {
    this.hurried = true;
  }

  /** "cut" when the streams still open are to be given up; otherwise how long to wait before asking again. */
  wait(now: number): number | "cut" {
    if (now >= this.deadline || this.bytesAfterExit > this.capacity) return "cut";
    if (this.paused) return this.hurried ? "cut" : Math.min(PAUSED_POLL_MS, this.deadline - now);
    const idle = now - this.lastRead;
    const bound = this.hurried ? HURRIED_IDLE_MS : this.idleMs;
    if (idle < bound) return Math.min(bound - idle, this.deadline - now);
    // Idle by the clock, but a starved reader looks idle too: timers run before the pipes are read in each turn of
    // the event loop. One more turn reads what the pipe holds; only if that brings nothing is it held open.
    if (!this.lookedAgain) {
      this.lookedAgain = true;
      return 1;
    }
    return "cut";
  }
}
