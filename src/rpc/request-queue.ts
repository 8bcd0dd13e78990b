// Requests wait here for room on stdout. A burst of requests with large answers (800 `tasks/get` of a task with
// 8 MiB of output, in one write) is answered as the client reads, one at a time, instead of all at once in memory.
export interface QueueHooks<T> {
  /** Starts handling one request. */
  start(item: T): void;
  /** Resolves once the output has room for another answer. */
  room(): Promise<void>;
  /** Called when the queue fills up (stop reading input) and when it has room again. */
  onFull(full: boolean): void;
}

export class RequestQueue<T> {
  private readonly waiting: T[] = [];
  private running = false;
  private readonly emptied: Array<() => void> = [];

  constructor(
    private readonly hooks: QueueHooks<T>,
    private readonly limit = 1000,
  ) {}

  get full(): boolean {
    return this.waiting.length >= this.limit;
  }

  push(items: readonly T[]): void {
    if (items.length === 0) return;
    this.waiting.push(...items);
    if (this.full) this.hooks.onFull(true);
    void this.run();
  }

  /** Resolves once every request pushed so far has been started. */
  empty(): Promise<void> {
    if (this.waiting.length === 0 && !this.running) return Promise.resolve();
    return new Promise((resolve) => this.emptied.push(resolve));
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.waiting.length > 0) {
        await this.hooks.room();
        const wasFull = this.full;
        this.hooks.start(this.waiting.shift() as T);
        if (wasFull && !this.full) this.hooks.onFull(false);
        // A quick answer (tasks/get) is written before the next request starts, so `room` sees it.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
      for (const resolve of this.emptied.splice(0)) resolve();
    }
  }
}
