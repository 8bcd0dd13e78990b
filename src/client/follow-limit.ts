// How long a task on a server is followed: a server that keeps a stream open with SSE comments and never ends the
// task cannot hold the client past the task's deadline plus a grace (docs/reference.md, "A runtime at a URL"). Pure.
import type { TaskView } from "../core/task/task-record.js";

/** The longest `timeout_seconds` an envelope may have (CONTRACT section 2). */
export const MAX_TIMEOUT_MS = 900_000;
/** After the deadline: the runtime's SIGTERM-to-SIGKILL grace (2 s) and the time to say the task ended. */
export const FOLLOW_GRACE_MS = 10_000;

export class FollowLimit {
  /** When following stops, in ms since the epoch: until the task starts, the longest deadline from now. */
  until: number;
  private started = false;

  constructor(now: number) {
    this.until = now + MAX_TIMEOUT_MS + FOLLOW_GRACE_MS;
  }

  /**
   * The task as the server now tells it. Once it has started, the limit is its deadline plus the grace, set once:
   * the time left is the deadline less the status's own timestamp (both the server's clock, so a clock that differs
   * from ours does not matter), at most the longest deadline there is. True when the limit moved.
   */
  seen(task: TaskView | undefined, now: number): boolean {
    if (this.started || !task || (task.state !== "working" && task.state !== "input-required")) return false;
    this.started = true;
    const deadline = Date.parse(task.deadline ?? "");
    const at = Date.parse(task.updatedAt);
    const left = Number.isFinite(deadline)
      ? deadline - (Number.isFinite(at) ? at : now)
      : typeof task.timeoutSeconds === "number"
        ? task.timeoutSeconds * 1000
        : MAX_TIMEOUT_MS;
    this.until =
      now + (Number.isFinite(left) ? Math.min(Math.max(left, 0), MAX_TIMEOUT_MS) : MAX_TIMEOUT_MS) + FOLLOW_GRACE_MS;
    return true;
  }

  /** Words for a task followed past its limit. */
  words(origin: string, task: TaskView | undefined): string {
    return this.started
      ? `the task's deadline${task?.deadline ? ` (${task.deadline})` : ""} passed ${FOLLOW_GRACE_MS / 1000} s ago and ${origin} has not said the task ended: stopped following it`
      : `${origin} has not said the task started within ${(MAX_TIMEOUT_MS + FOLLOW_GRACE_MS) / 1000} s (the longest deadline a command may have, then ${FOLLOW_GRACE_MS / 1000} s): stopped following it`;
  }
}
