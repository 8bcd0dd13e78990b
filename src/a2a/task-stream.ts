// One task's events as an async iterable: the task as it is first, then its events in order, until a stop rule says
// the stream is over. Events wait in a small queue; past its mark the task's output is held at the pipe instead of
// piling up here, so a reader that stops reading costs no memory (CONTRACT 5.5, 8.4).
import type { Dispatcher, DispatcherEvent, TaskView } from "../core/task/dispatcher.js";
import { isTerminal } from "../core/task/task.js";

export type StreamItem = { type: "task"; task: TaskView } | DispatcherEvent;

/** When a stream ends: 0.3 streams at an ended task, 1.0 streams also at `input-required` (CONTRACT 7.3). */
export type StopRule = "ended" | "ended-or-input";

/** Output events waiting before the task's output is held back. */
const HIGH_WATER = 64;

export function stopsAt(rule: StopRule, task: TaskView): boolean {
  return isTerminal(task.state) || (rule === "ended-or-input" && task.state === "input-required");
}

export class TaskStream implements AsyncIterableIterator<StreamItem> {
  private readonly queue: StreamItem[] = [];
  private waiting: ((result: IteratorResult<StreamItem>) => void) | undefined;
  private done = false;
  private held = false;
  private readonly off: () => void;

  /**
   * Starts following now: the snapshot and the subscription are taken in one turn, so no event is lost or repeated.
   * A snapshot that already stops the stream ends it at once (after a closing status, for a task that ended).
   */
  constructor(
    private readonly dispatcher: Dispatcher,
    readonly taskId: string,
    private readonly rule: StopRule,
    options: { closingStatus?: boolean } = {},
  ) {
    const task = dispatcher.get(taskId);
    this.queue.push({ type: "task", task });
    this.off = () => {};
    if (stopsAt(rule, task)) {
      // An answer's stream may start after its task ended: the end is still told, as the event it was (numbered
      // after the Task, which then counts the events before it: CONTRACT 9.4).
      if (options.closingStatus && isTerminal(task.state)) {
        this.queue[0] = { type: "task", task: { ...task, lastEvent: task.lastEvent - 1 } };
        this.queue.push({ type: "status", task: { ...task } });
      }
      this.done = true;
      return;
    }
    this.off = dispatcher.subscribe((event) => {
      const id = event.type === "status" ? event.task.id : event.taskId;
      if (id === taskId) this.push(event);
    });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<StreamItem> {
    return this;
  }

  next(): Promise<IteratorResult<StreamItem>> {
    const item = this.queue.shift();
    if (item) {
      this.releaseIfLow();
      return Promise.resolve({ value: item, done: false });
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** The reader went away: stop following (the task goes on). */
  return(): Promise<IteratorResult<StreamItem>> {
    this.finish();
    this.queue.length = 0;
    return Promise.resolve({ value: undefined, done: true });
  }

  private push(event: DispatcherEvent): void {
    if (this.done) return;
    if (event.type === "output" && event.data.length === 0) return;
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = undefined;
      waiting({ value: event, done: false });
    } else {
      this.queue.push(event);
      if (!this.held && this.queue.length > HIGH_WATER) {
        this.held = true;
        this.dispatcher.holdOutput(this.taskId);
      }
    }
    if (event.type === "status" && stopsAt(this.rule, event.task)) this.finish();
  }

  private releaseIfLow(): void {
    if (this.held && this.queue.length <= HIGH_WATER / 2) {
      this.held = false;
      this.dispatcher.releaseOutput(this.taskId);
    }
  }

  private finish(): void {
    if (this.done) return;
    this.done = true;
    this.off();
    if (this.held) {
      this.held = false;
      this.dispatcher.releaseOutput(this.taskId);
    }
    const waiting = this.waiting;
    if (waiting && this.queue.length === 0) {
      this.waiting = undefined;
      waiting({ value: undefined, done: true });
    }
  }
}
