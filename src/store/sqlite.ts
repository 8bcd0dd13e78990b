// The --state-dir store: task rows and output chunks in SQLite (CONTRACT 5.5). Tasks that run are kept in memory as
// live records and written through: their row at every change, their output in batches, so a crash loses at most
// the last batch. Ended tasks live in the database only and are read back (and checked) when asked for.
import { rmSync } from "node:fs";
import type { Database } from "better-sqlite3";
import { DEFAULT_KEPT_ENDED, DEFAULT_KEPT_ENDED_BYTES, type TaskStore } from "../core/store.js";
import { type ListPage, type ListQuery, mergePages } from "../core/task/list-query.js";
import type { OutputChunk, StreamName } from "../core/task/output-log.js";
import { isTerminal } from "../core/task/task.js";
import type { TaskRecord } from "../core/task/task-record.js";
import { CheckedRows } from "./checked-rows.js";
import { describeDbError, isDiskFull } from "./db-errors.js";
import { SqliteKeptAnswers } from "./kept-answers.js";
import { MemoryStore } from "./memory.js";
import { PageQueries } from "./page-queries.js";
import { SqlPushConfigs } from "./push-configs.js";
import { Retention } from "./retention.js";
import { type ChunkRow, checkChunkRow, checkTaskRow, detailOf, recordOfRow, type TaskRow } from "./rows.js";
import { lastEndedSeq, type TaskStatements, taskStatements } from "./task-statements.js";

export interface SqliteStoreOptions {
  /** Output a task record keeps, both streams together. */
  outputLimit: number;
  keptEnded?: number;
  /** Bytes kept by ended tasks together: their output and their rows (message, envelope...). */
  keptEndedBytes?: number;
  /** A busy stream's output waits at least this long between batches (longer after a large batch). */
  flushMs?: number;
  /** Warnings: a row skipped, a write that failed. */
  warn: (line: string) => void;
  /** Called once the database is closed. */
  onClose?: () => void;
  /** Ids of rows of the wrong shape, found at open: skipped from then on. */
  skipped?: Iterable<string>;
  /** A file of spare room on the state dir's disk, removed when the disk is full (src/store/reserve.ts). */
  reserve?: string;
}

const STREAMS: readonly StreamName[] = ["stdout", "stderr"];
export const FLUSH_MS = 100;
/** Output written per second of waiting, at most: see `flushOutput`. */
export const FLUSH_BYTES_PER_SECOND = 16 * 1024 * 1024;
export const FLUSH_ROWS_PER_SECOND = 100_000;
const CHECKPOINT_AFTER_MS = 1000;

/** A task that has not ended, and how far its output is in the database. */
interface Live {
  record: TaskRecord;
  /** Its row's key, once written. */
  n: number | undefined;
  /** Per stream, the highest seq written. */
  written: Record<StreamName, number>;
  /** Per stream, the upper end of the dropped range already deleted. */
  deletedBefore: Record<StreamName, number>;
}

export class SqliteStore implements TaskStore {
  private readonly live = new Map<string, Live>();
  /** Live tasks with output not yet written. */
  private readonly dirty = new Set<Live>();
  /** When output may be written again (performance.now()). */
  private nextFlush = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private checkpointTimer: NodeJS.Timeout | undefined;
  private endedSeq: number;
  /** Ids the database must not answer for: rows of the wrong shape, and tasks kept in memory after a failed write. */
  private readonly hidden = new Set<string>();
  /**
   * Tasks served from memory: all of them once a write has failed (`degraded`), or, on a full disk, the ended tasks
   * whose output could not all be written.
   */
  private fallback: MemoryStore | undefined;
  /** A write failed for another reason than a full disk, or even after the reserve was freed: nothing is written. */
  private degraded = false;
  /** The disk is full: output is no longer written, but every task's row (its state, its end) still is. */
  private outputOff = false;
  private readonly reserve: string | undefined;
  private closed = false;
  private readonly keptEnded: number;
  private readonly keptEndedBytes: number;
  private readonly flushMs: number;
  private readonly outputLimit: number;
  private readonly warn: (line: string) => void;
  private readonly onClose: () => void;
  private readonly pages: PageQueries;
  readonly pushConfigs: SqlPushConfigs;
  readonly keptAnswers: SqliteKeptAnswers;
  private readonly sql: TaskStatements;
  private readonly retention: Retention;
  private readonly checkedRows = new CheckedRows();

  constructor(
    private readonly db: Database,
    private readonly path: string,
    options: SqliteStoreOptions,
  ) {
    this.outputLimit = options.outputLimit;
    this.keptEnded = options.keptEnded ?? DEFAULT_KEPT_ENDED;
    this.keptEndedBytes = options.keptEndedBytes ?? DEFAULT_KEPT_ENDED_BYTES;
    this.flushMs = options.flushMs ?? FLUSH_MS;
    this.warn = options.warn;
    this.onClose = options.onClose ?? (() => {});
    this.reserve = options.reserve;
    for (const id of options.skipped ?? []) this.hidden.add(id);
    this.pages = new PageQueries(db);
    this.pushConfigs = new SqlPushConfigs(db, this.warn, () => !this.fallback && !this.closed);
    this.keptAnswers = new SqliteKeptAnswers(db, this.warn);
    this.sql = taskStatements(db);
    this.endedSeq = lastEndedSeq(db);
    this.retention = new Retention(db, { keptEnded: this.keptEnded, keptEndedBytes: this.keptEndedBytes });
  }

  put(record: TaskRecord): void {
    if (this.closed) return;
    if (!this.degraded) {
      let live = this.live.get(record.id);
      if (!live) {
        live = { record, n: undefined, written: { stdout: 0, stderr: 0 }, deletedBefore: { stdout: 0, stderr: 0 } };
        this.live.set(record.id, live);
      }
      const ended = isTerminal(record.state);
      // Output a caller added without `appended` is written too (looking for it costs nothing when there is none).
      this.dirty.add(live);
      const written = this.write(() => {
        if (ended) this.retention.beforeEndedWrite(record.id);
        const fields = this.rowOf(record, ended ? ++this.endedSeq : null);
        const row = this.sql.upsert.get(fields) as { n: number };
        (live as Live).n = row.n;
        // Every state change writes what output is pending too, so the row and its output agree.
        this.flushOutput();
        if (ended) {
          this.retention.afterEndedWrite(fields.bytes);
          this.retention.apply(this.hidden);
        }
      });
      if (ended) {
        this.live.delete(record.id);
        this.dirty.delete(live);
      }
      if (written) {
        if (ended && this.outputOff) this.keepInMemory(record);
        return;
      }
    }
    this.hidden.add(record.id);
    this.fallback?.put(record);
  }

  /**
   * Output is written in batches: the first chunk after a quiet spell at once (a crash loses none of a command that
   * prints now and then), a busy stream's when the next batch is due (see `flushOutput`). A chunk the log has
   * dropped by then is never written.
   */
  appended(record: TaskRecord, _chunk: OutputChunk): void {
    const live = this.live.get(record.id);
    if (!live || this.degraded || this.outputOff) return;
    this.dirty.add(live);
    if (this.timer !== undefined) return;
    const wait = this.nextFlush - performance.now();
    if (wait <= 0) this.flush();
    else {
      this.timer = setTimeout(() => this.flush(), wait);
      this.timer.unref();
    }
  }

  /** Writes the output that is pending now. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty.size > 0 && !this.degraded && !this.closed) this.write(() => this.flushOutput());
  }

  get(id: string, withOutput = true): TaskRecord | undefined {
    const live = this.live.get(id)?.record ?? this.fallback?.get(id);
    if (live) return live;
    if (this.hidden.has(id) || this.closed) return undefined;
    return this.read(id, () => this.sql.selectTask.get(id), withOutput);
  }

  all(withOutput = true): TaskRecord[] {
    const records = [...this.live.values()].map((live) => live.record);
    records.push(...(this.fallback?.all() ?? []));
    if (this.closed) return records;
    for (const row of this.db.prepare("SELECT id FROM tasks").all() as { id: string }[]) {
      if (this.live.has(row.id) || this.hidden.has(row.id)) continue;
      const record = this.get(row.id, withOutput);
      if (record) records.push(record);
    }
    return records;
  }

  list(query: ListQuery, withOutput = false): ListPage<TaskRecord> {
    const page = this.pages.page(query, this.hidden);
    const items: TaskRecord[] = [];
    for (const row of page.rows) {
      const record = this.live.get(row.id)?.record ?? this.read(row.id, () => row, withOutput);
      if (record) items.push(record);
    }
    const stored = { items, nextPageToken: page.nextPageToken, totalSize: page.totalSize };
    return this.fallback ? mergePages(stored, this.fallback.list(query), query.pageSize) : stored;
  }

  /** Writes what is pending, closes the database (which lets go of the lock) and calls `onClose`. */
  close(): void {
    if (this.closed) return;
    this.flush();
    clearTimeout(this.timer);
    clearTimeout(this.checkpointTimer);
    this.closed = true;
    try {
      this.db.close();
    } finally {
      this.onClose();
    }
  }

  /**
   * Runs `work` in one transaction. A full disk stops the output from being written, frees the reserve and tries once
   * more (a task's end is small, and is recorded even when its output can't be); any other failure, or a second one,
   * turns the store to memory (told once) and returns false.
   */
  private write(work: () => void): boolean {
    if (this.degraded) return false;
    const totals = this.retention.snapshot();
    try {
      this.db.transaction(work)();
    } catch (error) {
      this.retention.restore(totals);
      if (!isDiskFull(error) || this.outputOff) {
        this.degrade(error);
        return false;
      }
      this.stopWritingOutput(error);
      return this.write(work);
    }
    this.checkpointWhenQuiet();
    return true;
  }

  /**
   * A checkpoint waits for the disk: it runs once nothing has been written for CHECKPOINT_AFTER_MS, not in the
   * middle of a stream (src/store/open.ts sets the size at which SQLite runs one anyway).
   */
  private checkpointWhenQuiet(): void {
    clearTimeout(this.checkpointTimer);
    this.checkpointTimer = setTimeout(() => {
      if (this.closed || this.degraded) return;
      try {
        this.db.pragma("wal_checkpoint(TRUNCATE)");
      } catch {
        // Nothing is lost: the log stays, and the next write says whether the disk still takes writes.
      }
    }, CHECKPOINT_AFTER_MS);
    this.checkpointTimer.unref();
  }

  private degrade(error: unknown): void {
    this.warn(
      `cannot write ${this.path} (${describeDbError(error)}); from now on tasks are kept in memory only and will not survive a restart`,
    );
    this.degraded = true;
    this.fallback ??= new MemoryStore(this.keptEnded, this.keptEndedBytes);
    clearTimeout(this.timer);
    this.timer = undefined;
    for (const live of this.live.values()) {
      this.hidden.add(live.record.id);
      this.fallback.put(live.record);
    }
    this.live.clear();
    this.dirty.clear();
  }

  /** Inside a transaction: the kept output of every dirty task that is not in the database yet, minus what its log dropped. */
  private flushOutput(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.outputOff) {
      this.dirty.clear();
      return;
    }
    let bytes = 0;
    let rows = 0;
    for (const live of this.dirty) {
      const { record, n } = live;
      if (n === undefined) continue;
      for (const stream of STREAMS) {
        const log = record[stream];
        for (const chunk of log.chunksSince(live.written[stream])) {
          const ascii = chunk.asciiBytes?.();
          if (ascii) this.sql.insertAsciiChunk.run(n, stream, chunk.seq, ascii);
          else this.sql.insertChunk.run(n, stream, chunk.seq, chunk.text);
          live.written[stream] = chunk.seq;
          bytes += chunk.bytes;
          rows += 1;
        }
        const dropped = log.droppedBetween;
        if (dropped && dropped[1] > live.deletedBefore[stream]) {
          this.sql.deleteChunks.run(n, stream, dropped[0], dropped[1]);
          live.deletedBefore[stream] = dropped[1];
        }
      }
      this.sql.updateOutput.run(record.stdout.droppedBytes, record.stderr.droppedBytes, keptBytes(record), n);
    }
    this.dirty.clear();
    // The next batch waits `flushMs`, and longer after a large one: writing output takes a bounded share of the
    // bridge's time however fast commands print (a flood rewrites its kept tail at most a few times a second).
    const spent = Math.max(
      this.flushMs,
      (1000 * bytes) / FLUSH_BYTES_PER_SECOND,
      (1000 * rows) / FLUSH_ROWS_PER_SECOND,
    );
    this.nextFlush = performance.now() + spent;
  }

  /** Forgets the oldest ended tasks beyond the limits (src/store/retention.ts); throws when the database can't be written. */
  applyRetention(): void {
    const totals = this.retention.snapshot();
    try {
      this.db.transaction(() => this.retention.apply(this.hidden))();
    } catch (error) {
      this.retention.restore(totals);
      throw error;
    }
  }

  private rowOf(record: TaskRecord, endedSeq: number | null): Omit<TaskRow, "n"> & { bytes: number } {
    const detail = detailOf(record);
    return {
      id: record.id,
      context_id: record.contextId,
      state: record.state,
      updated_at: record.updatedAt,
      ended_seq: endedSeq,
      pid: record.pid ?? null,
      pid_start: record.pidStart ?? null,
      stdout_dropped: this.outputOff ? this.unstored(record, "stdout") : record.stdout.droppedBytes,
      stderr_dropped: this.outputOff ? this.unstored(record, "stderr") : record.stderr.droppedBytes,
      bytes: Buffer.byteLength(detail) + keptBytes(record),
      detail,
    };
  }

  /**
   * On a full disk: the bytes of a stream the database does not hold, so that a restart counts them as dropped
   * (src/store/rows.ts adds them to what is stored: its total stays the command's).
   */
  private unstored(record: TaskRecord, stream: StreamName): number {
    const n = (this.sql.selectN.get(record.id) as { n: number } | undefined)?.n;
    const stored = n === undefined ? 0 : ((this.sql.storedBytes.get(n, stream) as { bytes: number | null }).bytes ?? 0);
    return Math.max(0, record[stream].totalBytes - stored);
  }

  /** The disk is full: output is no longer written, and the room kept for this moment is given back. */
  private stopWritingOutput(error: unknown): void {
    this.outputOff = true;
    if (this.reserve) rmSync(this.reserve, { force: true });
    this.fallback ??= new MemoryStore(this.keptEnded, this.keptEndedBytes);
    clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty.clear();
    this.warn(
      `cannot write task output to ${this.path} (${describeDbError(error)}); from now on output is kept in memory only (each task says at its end how many bytes a restart will lack), while every task's state and end are still recorded`,
    );
  }

  /** An ended task whose output the database lacks: this run serves it whole from memory. */
  private keepInMemory(record: TaskRecord): void {
    this.hidden.add(record.id);
    this.fallback?.put(record);
    const lost = (["stdout", "stderr"] as const)
      .map((stream) => [stream, this.unstored(record, stream)] as const)
      .filter(([, bytes]) => bytes > 0);
    if (lost.length > 0)
      this.warn(
        `task ${record.id} ended ${record.state}; ${lost.map(([stream, bytes]) => `${bytes} bytes of its ${stream}`).join(" and ")} could not be written to ${this.path} (the disk is full): after a restart its record counts them in dropped_bytes`,
      );
  }

  /** A stored task, checked; a row of the wrong shape is skipped (and named once), a read error too. */
  private read(id: string, row: () => unknown, withOutput: boolean): TaskRecord | undefined {
    try {
      const found = row();
      if (found === undefined) return undefined;
      const checked = checkTaskRow(found);
      if (!checked.ok) return this.skip(id, checked.problem);
      const chunks = withOutput ? this.chunksOf(checked.value) : [];
      const record = recordOfRow(checked.value, this.outputLimit, chunks, this.checkedRows.has(id));
      if (!record.ok) return this.skip(id, record.problem);
      this.checkedRows.add(id);
      return record.value;
    } catch (error) {
      this.warn(`cannot read task ${id} from ${this.path} (${describeDbError(error)}); it is skipped`);
      return undefined;
    }
  }

  private chunksOf({ id, n }: TaskRow): ChunkRow[] {
    const chunks: ChunkRow[] = [];
    let bad = 0;
    for (const row of this.sql.selectChunks.iterate(n)) {
      const checked = checkChunkRow(row);
      if (checked.ok) chunks.push(checked.value);
      else bad += 1;
    }
    if (bad > 0) this.warn(`task ${id} in ${this.path}: ${bad} output chunk(s) of the wrong shape skipped`);
    return chunks;
  }

  private skip(id: string, problem: string): undefined {
    this.hidden.add(id);
    this.warn(`task ${id} in ${this.path} has a row of the wrong shape (${problem}); it is skipped`);
    return undefined;
  }
}

function keptBytes(record: TaskRecord): number {
  return record.stdout.keptBytes + record.stderr.keptBytes;
}
