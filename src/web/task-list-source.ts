// The task list, live (CONTRACT section 10, 7.4): a first page of ListTasks (newest status first), then every second
// the tasks whose status changed since the newest timestamp seen (statusTimestampAfter), merged in. One small
// request a second whatever the number of tasks, no stream held per task; paused while the tab is hidden.
import type { Api } from "./api.js";
import type { Task } from "./task-fields.js";

export interface ListFilters {
  /** A state name (TASK_STATE_…) or "". */
  status: string;
  contextId: string;
}

const PAGE = 50;
const POLL_MS = 1000;
/** Tasks kept in the page's list; the oldest go first. */
const MAX_TASKS = 1000;
/** Pages of changes read in one poll (100 each): a burst larger than this is read at the next poll. */
const MAX_CHANGE_PAGES = 5;

const time = (task: Task) => Date.parse(task.status.timestamp ?? "") || 0;

export class TaskListSource {
  tasks: Task[] = [];
  totalSize = 0;
  nextPageToken = "";
  error: string | undefined;
  loaded = false;
  private readonly byId = new Map<string, Task>();
  private newest = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;

  constructor(
    private readonly api: Api,
    private readonly filters: ListFilters,
    private readonly changed: () => void,
  ) {
    void this.first();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private query(extra: Record<string, string>): string {
    const params = new URLSearchParams({ historyLength: "0", ...extra });
    if (this.filters.contextId !== "") params.set("contextId", this.filters.contextId);
    return `/a2a/rest/tasks?${params}`;
  }

  private matches(task: Task): boolean {
    return this.filters.status === "" || task.status.state === this.filters.status;
  }

  /** Takes tasks in; true when any was new or changed. */
  private merge(tasks: Task[]): boolean {
    let changed = false;
    for (const task of tasks) {
      this.newest = Math.max(this.newest, time(task));
      const known = this.byId.get(task.id);
      if (known && known.status.timestamp === task.status.timestamp && known.status.state === task.status.state)
        continue;
      changed = true;
      if (this.matches(task)) this.byId.set(task.id, task);
      else this.byId.delete(task.id);
    }
    if (!changed) return false;
    this.tasks = [...this.byId.values()].sort((a, b) => time(b) - time(a));
    if (this.tasks.length > MAX_TASKS) {
      for (const task of this.tasks.slice(MAX_TASKS)) this.byId.delete(task.id);
      this.tasks = this.tasks.slice(0, MAX_TASKS);
    }
    return true;
  }

  private async first(): Promise<void> {
    try {
      const status: Record<string, string> = this.filters.status === "" ? {} : { status: this.filters.status };
      const page = await this.api.json<{ tasks: Task[]; nextPageToken: string; totalSize: number }>(
        "GET",
        this.query({ pageSize: String(PAGE), ...status }),
      );
      this.merge(page.tasks);
      this.nextPageToken = page.nextPageToken;
      this.totalSize = page.totalSize;
      this.loaded = true;
      this.error = undefined;
    } catch (error) {
      this.error = (error as Error).message;
    }
    if (!this.stopped) this.changed();
    this.schedule();
  }

  /** The next page of older tasks. */
  async more(): Promise<void> {
    if (this.nextPageToken === "") return;
    const status: Record<string, string> = this.filters.status === "" ? {} : { status: this.filters.status };
    const page = await this.api.json<{ tasks: Task[]; nextPageToken: string }>(
      "GET",
      this.query({ pageSize: String(PAGE), pageToken: this.nextPageToken, ...status }),
    );
    this.merge(page.tasks);
    this.nextPageToken = page.nextPageToken;
    this.changed();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.poll(), POLL_MS);
  }

  private async poll(): Promise<void> {
    if (document.visibilityState === "hidden") return this.schedule();
    try {
      if (!this.loaded) return await this.first();
      // A millisecond back: changes within the newest millisecond seen are read again rather than missed.
      const after = new Date(Math.max(0, this.newest - 1)).toISOString();
      let token = "";
      let changes = 0;
      for (let pages = 0; pages < MAX_CHANGE_PAGES; pages++) {
        const page = await this.api.json<{ tasks: Task[]; nextPageToken: string; totalSize: number }>(
          "GET",
          this.query({ pageSize: "100", statusTimestampAfter: after, ...(token ? { pageToken: token } : {}) }),
        );
        if (this.merge(page.tasks)) changes++;
        token = page.nextPageToken;
        if (token === "") break;
      }
      if (this.error !== undefined || changes > 0) {
        this.error = undefined;
        if (!this.stopped) this.changed();
      }
    } catch (error) {
      this.error = (error as Error).message;
      if (!this.stopped) this.changed();
    }
    this.schedule();
  }
}
