// Where task records live: in memory, keeping a bounded number of ended tasks.
import { type ListPage, type ListQuery, pageOf } from "./list-query.js";
import type { OutputChunk } from "./output-log.js";
import { isTerminal } from "./task.js";
import type { TaskRecord } from "./task-record.js";

export interface TaskStore {
  /** The record changed (state, prompt, pid...): called at every change, with the live record. */
  put(record: TaskRecord): void;
  /** A chunk of output was added to the record's log; a durable store keeps it so a crash loses none. */
  appended?(record: TaskRecord, chunk: OutputChunk): void;
  get(id: string): TaskRecord | undefined;
  all(): TaskRecord[];
  /** ListTasks: filters and one page, newest status first (src/core/list-query.ts). */
  list(query: ListQuery): ListPage<TaskRecord>;
  /** Writes what is pending and lets go of files and locks; the store is not used after. */
  close?(): void;
}

export const DEFAULT_KEPT_ENDED = 500;
/** Output and messages kept by ended tasks, all together: 500 tasks of 8 MiB each would not fit in Node's default heap. */
export const DEFAULT_KEPT_ENDED_BYTES = 256 * 1024 * 1024;

export class MemoryStore implements TaskStore {
  protected readonly records = new Map<string, TaskRecord>();

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
   * `keptEndedBytes`. Running tasks are never forgotten, nor the last ended one.
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
