// Where task records live: the interface the dispatcher writes to (src/store/ holds the memory and SQLite stores).

import type { PushConfigStore } from "./push-configs.js";
import type { ListPage, ListQuery } from "./task/list-query.js";
import type { OutputChunk } from "./task/output-log.js";
import type { TaskRecord } from "./task/task-record.js";

/**
 * Reads take `withOutput`: false lets a store hand back an ended task without reading its output, whose logs are
 * then empty. A task that has not ended always comes back as the live record itself, output and all.
 */
export interface TaskStore {
  /** The record changed (state, prompt, pid...): called at every change, with the live record. */
  put(record: TaskRecord): void;
  /** A chunk of output was added to the record's log; a durable store keeps it so a crash loses none. */
  appended?(record: TaskRecord, chunk: OutputChunk): void;
  get(id: string, withOutput?: boolean): TaskRecord | undefined;
  all(withOutput?: boolean): TaskRecord[];
  /** ListTasks: filters and one page, newest status first (src/core/task/list-query.ts). */
  list(query: ListQuery, withOutput?: boolean): ListPage<TaskRecord>;
  /** The tasks' push notification configs, kept and forgotten with their tasks (CONTRACT 9.3). */
  readonly pushConfigs?: PushConfigStore;
  /** Writes what is pending and lets go of files and locks; the store is not used after. */
  close?(): void;
  /** Where first answers are kept across a restart (CONTRACT 9.1); a store without it keeps them in memory. */
  keptAnswers?: KeptAnswerRows;
}

/** A first answer kept for retries of one key (idempotency/v1, CONTRACT 9.1); opaque text to the store. */
export interface KeptAnswer {
  key: string;
  /** The request hash, after the rule it was made by (`v2:`; bare in earlier versions: src/a2a/idempotency.ts). */
  hash: string;
  /** When it was kept (ms since the epoch). */
  at: number;
  /**
   * How `text` answers: a result's JSON text, an operation's error as JSON `{ code, message, data }` ("core-error";
   * "error" is a family's JSON-RPC error, as earlier versions kept it), or the id of the task a replay reads or follows.
   */
  kind: "result" | "core-error" | "error" | "task" | "stream";
  text: string;
}

/** Kept answers on disk: read once at start, then written through. */
export interface KeptAnswerRows {
  /** Every row, oldest first. */
  load(): KeptAnswer[];
  put(answer: KeptAnswer): void;
  delete(keys: readonly string[]): void;
}

export const DEFAULT_KEPT_ENDED = 500;
/** Output and messages kept by ended tasks, all together: 500 tasks of 8 MiB each would not fit in Node's default heap. */
export const DEFAULT_KEPT_ENDED_BYTES = 256 * 1024 * 1024;
