// Where task records live: in memory, keeping a bounded number of ended tasks.
import { isTerminal } from "./task.js";
import type { TaskRecord } from "./task-record.js";

export interface TaskStore {
  put(record: TaskRecord): void;
  get(id: string): TaskRecord | undefined;
  all(): TaskRecord[];
}

export const DEFAULT_KEPT_ENDED = 500;

export class MemoryStore implements TaskStore {
  protected readonly records = new Map<string, TaskRecord>();

  constructor(private readonly keptEnded = DEFAULT_KEPT_ENDED) {}

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

  /** Forgets the oldest ended tasks beyond the limit; running ones are never forgotten. */
  protected evict(): void {
    let ended = 0;
    for (const record of this.records.values()) if (isTerminal(record.state)) ended++;
    for (const [id, record] of this.records) {
      if (ended <= this.keptEnded) break;
      if (isTerminal(record.state)) {
        this.records.delete(id);
        ended--;
      }
    }
  }
}
