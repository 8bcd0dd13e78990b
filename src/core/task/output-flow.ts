// Whether each running task's output is read: paused for everyone while a consumer is full, held per task for a
// follower that cannot send its events yet. Reading stops at the pipe, so nothing piles up in memory.
import type { TaskRun } from "./task-run.js";

export class OutputFlow {
  private readonly holds = new Map<string, number>();
  private paused = false;
  private readonly all = new Set<string>();

  constructor(private readonly runOf: (id: string) => TaskRun | undefined) {}

  pauseAll(): void {
    if (this.paused) return;
    this.paused = true;
    this.applyEach();
  }

  resumeAll(): void {
    if (!this.paused) return;
    this.paused = false;
    this.applyEach();
  }

  hold(id: string): void {
    this.holds.set(id, (this.holds.get(id) ?? 0) + 1);
    this.applyTo(id);
  }

  release(id: string): void {
    const count = this.holds.get(id);
    if (count === undefined) return;
    if (count > 1) this.holds.set(id, count - 1);
    else this.holds.delete(id);
    this.applyTo(id);
  }

  /** A task started: its output follows the current rules. */
  apply(run: TaskRun): void {
    this.all.add(run.id);
    if (this.paused || this.holds.has(run.id)) run.command?.pause();
    else run.command?.resume();
  }

  forget(id: string): void {
    this.holds.delete(id);
    this.all.delete(id);
  }

  private applyTo(id: string): void {
    const run = this.runOf(id);
    if (run) this.apply(run);
  }

  private applyEach(): void {
    for (const id of this.all) this.applyTo(id);
  }
}
