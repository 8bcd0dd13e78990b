// Follows one task for its view: GetTask for what it holds so far, then SubscribeToTask while it runs (a stream that
// ends before the task does is subscribed again: the Task that starts it holds everything before its events,
// CONTRACT 9.4), and GetTask once more at the end for the fail kind and exit code.
import { type Api, ApiError } from "./api.js";
import { OutputLines, type StreamName } from "./output-lines.js";
import { artifactOutput, droppedBytes, type Json, record, records, type Task } from "./task-fields.js";
import { stateOf } from "./words.js";

/** Output taken in at once, at most: about 2 000 lines of 30 characters. */
const SLICE_CHARS = 65_536;
/** Time spent taking output in before the page gets the main thread back. */
const SLICE_MS = 8;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class TaskFollower {
  task: Task | undefined;
  readonly output = new OutputLines();
  dropped = 0;
  error: string | undefined;
  following = false;
  private readonly abort = new AbortController();
  private notifyScheduled = false;
  /** Characters of output received since the last Task, queued or taken in. */
  private seenChars = 0;
  private readonly queue: { stream: StreamName; text: string }[] = [];
  private draining = false;

  constructor(
    private readonly api: Api,
    readonly id: string,
    private readonly changed: () => void,
  ) {
    void this.run();
  }

  stop(): void {
    this.abort.abort();
  }

  /** Changes are told at most once a frame: output that pours in is drawn in batches. */
  private notify(): void {
    if (this.notifyScheduled) return;
    this.notifyScheduled = true;
    requestAnimationFrame(() => {
      this.notifyScheduled = false;
      if (!this.abort.signal.aborted) this.changed();
    });
  }

  private taskPath(): string {
    return `/a2a/rest/tasks/${encodeURIComponent(this.id)}`;
  }

  private take(task: Task): void {
    this.task = task;
    this.output.reset();
    this.queue.length = 0;
    this.seenChars = 0;
    for (const { stream, text } of artifactOutput(task)) this.append(stream, text);
    this.dropped = droppedBytes(task);
  }

  /**
   * Output is taken in through a queue, a slice at a time, for at most SLICE_MS at once: a large event (a burst the
   * server merged, or a Task holding megabytes) never holds the page's main thread for long (docs/benchmarks.md).
   */
  private append(stream: StreamName, text: string): void {
    this.seenChars += text.length;
    this.queue.push({ stream, text });
    if (!this.draining) {
      this.draining = true;
      setTimeout(() => this.drain(), 0);
    }
  }

  private drain(): void {
    const start = performance.now();
    while (this.queue.length > 0 && performance.now() - start < SLICE_MS) {
      const next = this.queue[0] as { stream: StreamName; text: string };
      if (next.text.length <= SLICE_CHARS) {
        this.queue.shift();
        this.output.append(next.stream, next.text);
      } else {
        // Cut after a newline where there is one, so that most slices end whole lines.
        const newline = next.text.lastIndexOf("\n", SLICE_CHARS);
        const cut = newline > 0 ? newline + 1 : SLICE_CHARS;
        this.output.append(next.stream, next.text.slice(0, cut));
        next.text = next.text.slice(cut);
      }
    }
    this.notify();
    if (this.queue.length > 0 && !this.abort.signal.aborted) setTimeout(() => this.drain(), 0);
    else this.draining = false;
  }

  private async run(): Promise<void> {
    try {
      this.take(await this.api.json<Task>("GET", this.taskPath()));
      this.notify();
      let quiet = 0;
      while (!this.abort.signal.aborted && this.task && !stateOf(this.task.status.state).ended) {
        this.following = true;
        this.notify();
        const started = Date.now();
        try {
          await this.api.follow(`${this.taskPath()}:subscribe`, (item) => this.item(item), this.abort.signal);
          // A stream that ends at once while the task goes on (a server that ends streams at a prompt) is not
          // asked for again at once.
          quiet = Date.now() - started < 1000 ? quiet + 1 : 0;
          if (quiet > 0) await sleep(Math.min(2000, 100 * 2 ** quiet));
        } catch (error) {
          if (this.abort.signal.aborted) return;
          // An ended task cannot be subscribed to: GetTask has its end.
          if (error instanceof ApiError && error.http === 400) break;
          if (error instanceof ApiError && error.http === 401) throw error;
          quiet++;
          await sleep(Math.min(5000, 250 * 2 ** quiet));
        }
      }
      this.following = false;
      if (this.abort.signal.aborted) return;
      // The end: the record's fail kind, reason and exit code. Its output replaces what was seen live only when it
      // holds more (the task may have ended between two streams); else the live output is kept.
      const last = await this.api.json<Task>("GET", `${this.taskPath()}?historyLength=0`);
      const held = artifactOutput(last).reduce((sum, part) => sum + part.text.length, 0);
      if (held > this.seenChars) {
        const history = this.task?.history;
        this.take(last);
        if (this.task && history) this.task.history = history;
      } else if (this.task)
        this.task = { ...this.task, status: last.status, ...(last.metadata ? { metadata: last.metadata } : {}) };
      this.notify();
    } catch (error) {
      if (this.abort.signal.aborted) return;
      this.following = false;
      this.error = error instanceof Error ? error.message : String(error);
      this.notify();
    }
  }

  private item(item: Json): void {
    if ("task" in item) this.take(item.task as Task);
    else if ("statusUpdate" in item && this.task) {
      const update = record(item.statusUpdate);
      this.task = { ...this.task, status: update.status as Task["status"] };
    } else if ("artifactUpdate" in item) {
      const artifact = record(record(item.artifactUpdate).artifact);
      const stream = artifact.artifactId === "stderr" ? "stderr" : "stdout";
      for (const part of records(artifact.parts)) if (typeof part.text === "string") this.append(stream, part.text);
    }
    this.notify();
  }
}
