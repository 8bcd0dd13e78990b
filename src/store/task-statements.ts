// The prepared statements of the tasks and chunks tables (src/store/schema.ts), for src/store/sqlite.ts.
import type { Database, Statement } from "better-sqlite3";

export type TaskStatements = Record<
  | "upsert"
  | "insertChunk"
  | "insertAsciiChunk"
  | "deleteChunks"
  | "updateOutput"
  | "selectTask"
  | "selectChunks"
  | "storedBytes"
  | "selectN",
  Statement
>;

export function taskStatements(db: Database): TaskStatements {
  return {
    upsert: db.prepare(
      `INSERT INTO tasks (id, context_id, state, updated_at, ended_seq, pid, pid_start, stdout_dropped, stderr_dropped, bytes, detail)
       VALUES (@id, @context_id, @state, @updated_at, @ended_seq, @pid, @pid_start, @stdout_dropped, @stderr_dropped, @bytes, @detail)
       ON CONFLICT (id) DO UPDATE SET context_id = excluded.context_id, state = excluded.state,
         updated_at = excluded.updated_at, ended_seq = excluded.ended_seq, pid = excluded.pid,
         pid_start = excluded.pid_start, stdout_dropped = excluded.stdout_dropped,
         stderr_dropped = excluded.stderr_dropped, bytes = excluded.bytes, detail = excluded.detail
       RETURNING n`,
    ),
    insertChunk: db.prepare("INSERT OR REPLACE INTO chunks (task, stream, seq, text) VALUES (?, ?, ?, ?)"),
    // ASCII output as its bytes, stored as the text they are: no decoding and encoding again on the way in.
    insertAsciiChunk: db.prepare(
      "INSERT OR REPLACE INTO chunks (task, stream, seq, text) VALUES (?, ?, ?, CAST(? AS TEXT))",
    ),
    deleteChunks: db.prepare("DELETE FROM chunks WHERE task = ? AND stream = ? AND seq > ? AND seq < ?"),
    updateOutput: db.prepare(
      "UPDATE tasks SET stdout_dropped = ?, stderr_dropped = ?, bytes = octet_length(detail) + ? WHERE n = ?",
    ),
    selectTask: db.prepare("SELECT * FROM tasks WHERE id = ?"),
    selectChunks: db.prepare("SELECT seq, stream, text FROM chunks WHERE task = ? ORDER BY stream, seq"),
    storedBytes: db.prepare("SELECT sum(octet_length(text)) AS bytes FROM chunks WHERE task = ? AND stream = ?"),
    selectN: db.prepare("SELECT n FROM tasks WHERE id = ?"),
  };
}

/** The place of the task that ended last; a row of the wrong shape can't push it past what JavaScript counts exactly. */
export function lastEndedSeq(db: Database): number {
  const row = db
    .prepare("SELECT max(ended_seq) AS last FROM tasks WHERE typeof(ended_seq) = 'integer' AND ended_seq < 1 << 52")
    .get() as { last: number | null };
  return row.last ?? 0;
}
