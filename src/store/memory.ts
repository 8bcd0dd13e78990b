// The store without --state-dir: records in memory, keeping a bounded number of ended tasks.
import { jsonBytes } from "../core/envelope/json-value.js";
import { MemoryPushConfigs } from "../core/push-configs.js";
import { DEFAULT_KEPT_ENDED, DEFAULT_KEPT_ENDED_BYTES, type TaskStore } from "../core/store.js";
import { type ListPage, type ListQuery, pageOf } from "../core/task/list-query.js";
import { isTerminal } from "../core/task/task.js";
import type { TaskRecord } from "../core/task/task-record.js";

export class MemoryStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();
  /** What each ended task costs to keep (keptBytes), in the order they ended; with their sum, so ending is O(1). */
  private readonly endedCosts = new Map<string, number>();
  private endedBytes = 0;
  readonly pushConfigs = new MemoryPushConfigs();

  constructor(
    private readonly keptEnded = DEFAULT_KEPT_ENDED,
    private readonly keptEndedBytes = DEFAULT_KEPT_ENDED_BYTES,
  ) {}

  put(record: TaskRecord): void {
    const isNew = !this.records.has(record.id);
    const ended = isTerminal(record.state);
    this.forgetCost(record.id);
    if (ended) {
      // Kept in the order they ended, so the oldest ended task is the first to go, never the one ending now.
      this.records.delete(record.id);
      const cost = keptBytes(record);
      this.endedCosts.set(record.id, cost);
      this.endedBytes += cost;
    }
    this.records.set(record.id, record);
    if (isNew || ended) this.evict();
  }

  get(id: string): TaskRecord | undefined {
    return this.records.get(id);
  }

  all(): TaskRecord[] {
    return [...this.records.values()];
  }

  list(query: ListQuery): ListPage<TaskRecord> {
    return pageOf(this.records.values(), query);
  }

  /**
   * Forgets the oldest ended tasks while there are more than `keptEnded` of them or their output is over
   * `keptEndedBytes` (output and messages). Running tasks are never forgotten, nor the last ended one.
   */
  private evict(): void {
    for (const id of this.endedCosts.keys()) {
      const count = this.endedCosts.size;
      if (count <= this.keptEnded && (this.endedBytes <= this.keptEndedBytes || count <= 1)) break;
      this.forgetCost(id);
      this.records.delete(id);
      this.pushConfigs.forgetTask(id);
    }
  }

  private forgetCost(id: string): void {
    const cost = this.endedCosts.get(id);
    if (cost === undefined) return;
    this.endedCosts.delete(id);
    this.endedBytes -= cost;
  }
}

/** What an ended task costs to keep: its kept output and its messages (the request and the status words). */
export function keptBytes(record: TaskRecord): number {
  // Counted without recursion: a message is caller JSON (the request gate bounds its depth, this does not rely on it).
  const message = (record.message ? jsonBytes(record.message) : 0) + (record.answers ? jsonBytes(record.answers) : 0);
  const words = record.statusText ? Buffer.byteLength(record.statusText) : 0;
  return record.stdout.keptBytes + record.stderr.keptBytes + message + words;
}
