// Follows one task for its view: GetTask for what it holds so far, then SubscribeToTask while it runs (a stream that
// ends before the task does is subscribed again: the Task that starts it holds everything before its events,
// CONTRACT 9.4), and GetTask once more at the end for the fail kind and exit code.
import { type Api, ApiError } from "./api.js";
import { OutputLines } from "./output-lines.js";
import { artifactOutput, droppedBytes, type Json, record, type Task } from "./task-fields.js";
import { stateOf } from "./words.js";

export class TaskFollower {
  task: Task | undefined;
  readonly output = new OutputLines();
  dropped = 0;
  error: string | undefined;
  following = false;
  private readonly abort = new AbortController();
  private notifyScheduled = false;

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
    for (const { stream, text } of artifactOutput(task)) this.output.append(stream, text);
    this.dropped = droppedBytes(task);
  }

  private async run(): Promise<void> {
    try {
      this.take(await this.api.json<Task>("GET", this.taskPath()));
      this.notify();
      let quiet = 0;
      while (!this.abort.signal.aborted && this.task && !stateOf(this.task.status.state).ended) {
        this.following = true;
        this.notify();
        try {
          await this.api.follow(`${this.taskPath()}:subscribe`, (item) => this.item(item), this.abort.signal);
          quiet = 0;
        } catch (error) {
          if (this.abort.signal.aborted) return;
          // An ended task cannot be subscribed to: GetTask has its end.
          if (error instanceof ApiError && error.http === 400) break;
          if (error instanceof ApiError && error.http === 401) throw error;
          quiet++;
          await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** quiet)));
        }
      }
      this.following = false;
      if (this.abort.signal.aborted) return;
      // The end: the record's fail kind, reason and exit code. The live output seen so far is kept.
      const last = await this.api.json<Task>("GET", `${this.taskPath()}?historyLength=0`);
      if (this.task)
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
      for (const part of Array.isArray(artifact.parts) ? artifact.parts.map(record) : [])
        if (typeof part.text === "string") this.output.append(stream, part.text);
    }
    this.notify();
  }
}
