// What Ctrl-C does, the same on the screen and in the plain mode (CONTRACT section 6): the first cancels the task
// (SIGTERM to its process group, SIGKILL after the grace period), a second kills the group at once.
import type { LiveTask } from "./live-task.js";

type Stopper = Pick<LiveTask, "cancelIfRunning" | "killAll">;

export class Interrupts {
  private count = 0;

  constructor(
    private readonly dispatcher: Stopper,
    private readonly taskId: string,
    /** Told after each interrupt, with how many there have been. */
    private readonly told: (count: number) => void = () => {},
  ) {}

  /** Ctrl-C (a key on the screen, SIGINT in line mode) or SIGTERM. */
  readonly interrupt = (): void => {
    this.count += 1;
    if (this.count === 1) this.dispatcher.cancelIfRunning(this.taskId);
    else this.dispatcher.killAll();
    this.told(this.count);
  };

  /** Nobody is left to see the task (the terminal closed, the reader of our output went away): it ends at once. */
  readonly hangUp = (): void => {
    this.dispatcher.cancelIfRunning(this.taskId);
    this.dispatcher.killAll();
  };

  /** SIGINT and SIGTERM interrupt, SIGHUP hangs up; returns the function that stops listening. */
  listen(target: NodeJS.EventEmitter = process): () => void {
    target.on("SIGINT", this.interrupt);
    target.on("SIGTERM", this.interrupt);
    target.on("SIGHUP", this.hangUp);
    return () => {
      target.off("SIGINT", this.interrupt);
      target.off("SIGTERM", this.interrupt);
      target.off("SIGHUP", this.hangUp);
    };
  }
}
