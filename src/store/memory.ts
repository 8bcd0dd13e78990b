// The store without --state-dir: records in memory, keeping a bounded number of ended tasks.
import { type ListPage, type ListQuery, pageOf } from "../core/list-query.js";
import { DEFAULT_KEPT_ENDED, DEFAULT_KEPT_ENDED_BYTES, type TaskStore } from "../core/store.js";
import { isTerminal } from "../core/task.js";
import type { TaskRecord } from "../core/task-record.js";

export class MemoryStore implements TaskStore {
  private readonly records = new Map<string, TaskRecord>();

  constructor(
    private readonly keptEnded = DEFAULT_KEPT_ENDED,
    private readonly keptEndedBytes = DEFAULT_KEPT_ENDED_BYTES,
  ) {}

  put(record: TaskRecord): void {
    const isNew = !this.records.has(record.id);
    const ended = isTerminal(record.state);
    // Kept in the order they ended, so the oldest ended task is the first to go, never the one ending now.
    if (ended) this.records.delete(record.id);
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
  protected evict(): void {
    let ended = 0;
    let bytes = 0;
    for (const record of this.records.values()) {
      if (!isTerminal(record.state)) continue;
      ended++;
      bytes += keptBytes(record);
    }
    for (const [id, record] of this.records) {
      if (ended <= this.keptEnded && (bytes <= this.keptEndedBytes || ended <= 1)) break;
      if (isTerminal(record.state)) {
        this.records.delete(id);
        ended--;
        bytes -= keptBytes(record);
      }
    }
  }
}

/** What an ended task costs to keep: its kept output and its messages (the request and the status words). */
export function keptBytes(record: TaskRecord): number {
  const message = record.message ? Buffer.byteLength(JSON.stringify(record.message)) : 0;
  const words = record.statusText ? Buffer.byteLength(record.statusText) : 0;
  return record.stdout.keptBytes + record.stderr.keptBytes + message + words;
}
