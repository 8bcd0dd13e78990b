// How many ended tasks the state database keeps, and how many bytes (--keep-tasks, --keep-bytes; docs/reference.md):
// the count and bytes of ended rows are counted once at open and then kept up to date at each change, so a task's
// end costs a lookup by id and, past a limit, the deletion of the oldest rows, never a scan of every row. A row's
// size is never taken from its `bytes` column (a file may lie): it is counted from the text stored, its `detail` and
// its output, where it is used. At open that is read from indexes SQLite keeps (src/store/schema.ts), not from rows.
import type { Database, Statement } from "better-sqlite3";
import { DETAIL_BYTES, UNSCREENED } from "./schema.js";

export interface RetentionLimits {
  keptEnded: number;
  keptEndedBytes: number;
}

/** What a row of `tasks` holds, counted from its text: its detail and its stored output. */
const ROW_BYTES =
  "octet_length(detail) + coalesce((SELECT sum(octet_length(text)) FROM chunks WHERE task = tasks.n), 0)";

interface Totals {
  count: number;
  bytes: number;
}

export class Retention {
  private totals: Totals;
  private readonly endedRow: Statement;
  private readonly oldest: Statement;
  private readonly remove: Statement;

  constructor(
    db: Database,
    private readonly limits: RetentionLimits,
  ) {
    // The rows' lengths from their index (tasks_detail_bytes), not from the rows; the output of every task less that
    // of the few not ended (after a start's recovery, only rows of the wrong shape), found through tasks_unscreened.
    const rows = db
      .prepare(`SELECT count(*) AS count, total(${DETAIL_BYTES}) AS bytes FROM tasks WHERE ended_seq IS NOT NULL`)
      .get() as Totals;
    const output = db
      .prepare(
        `SELECT total(octet_length(text)) AS bytes FROM chunks
         WHERE task NOT IN (SELECT n FROM tasks WHERE ${UNSCREENED} AND ended_seq IS NULL)`,
      )
      .get() as { bytes: number };
    this.totals = { count: rows.count, bytes: rows.bytes + output.bytes };
    this.endedRow = db.prepare(`SELECT ${ROW_BYTES} AS bytes FROM tasks WHERE id = ? AND ended_seq IS NOT NULL`);
    // Oldest end first, through the index on ended_seq; the task that ended last always stays (as in
    // src/store/memory.ts).
    this.oldest = db.prepare(
      `SELECT n, id, ${ROW_BYTES} AS bytes FROM tasks
       WHERE ended_seq IS NOT NULL AND ended_seq < (SELECT max(ended_seq) FROM tasks)
       ORDER BY ended_seq`,
    );
    this.remove = db.prepare("DELETE FROM tasks WHERE n = ?");
  }

  /** The totals as they are, to be put back with `restore` when the transaction they changed in is rolled back. */
  snapshot(): Totals {
    return { ...this.totals };
  }

  restore(saved: Totals): void {
    this.totals = { ...saved };
  }

  /** Inside a transaction, before the row of an ended task `id` is written: what it held is taken off the totals. */
  beforeEndedWrite(id: string): void {
    const row = this.endedRow.get(id) as { bytes: number } | undefined;
    if (!row) return;
    this.totals.count -= 1;
    this.totals.bytes -= row.bytes;
  }

  /** Inside the same transaction, once the ended row is written with `bytes`. */
  afterEndedWrite(bytes: number): void {
    this.totals.count += 1;
    this.totals.bytes += bytes;
  }

  /**
   * Deletes the oldest ended tasks while more are kept than the limits allow; throws when the database can't be
   * written. Rows in `hidden` (of the wrong shape, or served from memory) count but are never deleted here.
   */
  apply(hidden: ReadonlySet<string>): void {
    if (!this.over(this.totals)) return;
    const left = { ...this.totals };
    const doomed: number[] = [];
    for (const row of this.oldest.iterate() as Iterable<{ n: number; id: string; bytes: number }>) {
      if (!this.over(left)) break;
      if (hidden.has(row.id)) continue;
      doomed.push(row.n);
      left.count -= 1;
      left.bytes -= row.bytes;
    }
    for (const n of doomed) this.remove.run(n);
    this.totals = left;
  }

  private over({ count, bytes }: Totals): boolean {
    return count > this.limits.keptEnded || bytes > this.limits.keptEndedBytes;
  }
}
