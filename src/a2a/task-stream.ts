// One task's events as an async iterable: the task as it is first, then its events in order, until a stop rule says
// the stream is over. Events wait in a small queue; past its mark the task's output is held at the pipe instead of
// piling up here, so a reader that reads slowly gets every byte and costs no memory (CONTRACT 5.5). An HTTP reader
// that stops reading may not hold the task back (CONTRACT 8.4): once it is stalled, its stream keeps up to a byte
// limit of output instead, and fails past it.
import { CoreError } from "../core/errors.js";
import type { Dispatcher, DispatcherEvent, TaskView } from "../core/task/dispatcher.js";
import { isTerminal } from "../core/task/task.js";

export type StreamItem = { type: "task"; task: TaskView } | DispatcherEvent;

/** When a stream ends: 0.3 streams at an ended task, 1.0 streams also at `input-required` (CONTRACT 7.3). */
export type StopRule = "ended" | "ended-or-input";

/** Output events waiting before the task's output is held back. */
const HIGH_WATER = 64;

/** Events a stalled reader may have waiting, whatever their bytes: many tiny chunks must not cost unbounded memory. */
const MAX_BEHIND_EVENTS = 65_536;

export function stopsAt(rule: StopRule, task: TaskView): boolean {
  return isTerminal(task.state) || (rule === "ended-or-input" && task.state === "input-required");
}

export class TaskStream implements AsyncIterableIterator<StreamItem> {
  private readonly queue: StreamItem[] = [];
  private waiting: ((result: IteratorResult<StreamItem>) => void) | undefined;
  private done = false;
  private held = false;
  private readonly off: () => void;
  /** Set by failWhenBehind: the output bytes this reader may fall behind, how far behind it is, and whether it is
   * stalled (then its output is not held). */
  private behind: { max: number; bytes: number; stalled: boolean; fail(error: CoreError): void } | undefined;
  private failure: CoreError | undefined;

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
      if (this.behind && item.type === "output") this.behind.bytes -= item.data.length;
      this.releaseIfLow();
      return Promise.resolve({ value: item, done: false });
    }
    if (this.failure) return Promise.reject(this.failure);
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /**
   * A reader that may not hold the task back while it is stalled (CONTRACT 8.4): while `stalled(true)` its output is
   * not held, and once more than `maxBytes` of output waits for it, the stream is over and the promise resolves with
   * the error to tell it (`next()` rejects with it).
   */
  failWhenBehind(maxBytes: number): Promise<CoreError> {
    return new Promise((resolve) => {
      let bytes = 0;
      for (const item of this.queue) if (item.type === "output") bytes += item.data.length;
      this.behind = { max: maxBytes, bytes, stalled: false, fail: resolve };
    });
  }

  /** The reader has taken nothing for a while (true), or took something again (false); see failWhenBehind. */
  stalled(stalled: boolean): void {
    const behind = this.behind;
    if (!behind || this.done || behind.stalled === stalled) return;
    behind.stalled = stalled;
    if (!stalled) {
      this.holdIfHigh();
      return;
    }
    if (this.held) {
      this.held = false;
      this.dispatcher.releaseOutput(this.taskId);
    }
    this.checkBehind();
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
      if (this.behind && event.type === "output") this.behind.bytes += event.data.length;
      if (this.behind?.stalled) {
        if (this.checkBehind()) return;
      } else this.holdIfHigh();
    }
    if (event.type === "status" && stopsAt(this.rule, event.task)) this.finish();
  }

  /** Ends the stream with slow_consumer when its reader is too far behind; true when it did. */
  private checkBehind(): boolean {
    const behind = this.behind;
    if (!behind?.stalled || this.done) return false;
    if (behind.bytes <= behind.max && this.queue.length <= MAX_BEHIND_EVENTS) return false;
    this.failure = new CoreError(
      "slow_consumer",
      `the client fell too far behind task ${this.taskId} (more than ${behind.max} bytes or ${MAX_BEHIND_EVENTS} events of output waiting); subscribe again to go on`,
      { reason: "slow_consumer", task_id: this.taskId },
    );
    this.queue.length = 0;
    this.finish();
    behind.fail(this.failure);
    return true;
  }

  private holdIfHigh(): void {
    if (!this.held && this.queue.length > HIGH_WATER) {
      this.held = true;
      this.dispatcher.holdOutput(this.taskId);
    }
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
    if (waiting && this.queue.length === 0 && !this.failure) {
      this.waiting = undefined;
      waiting({ value: undefined, done: true });
    }
  }
}
