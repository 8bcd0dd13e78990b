// The state database's schema, its versions and the one list of migrations; and the checks that tell our database
// from another program's, a newer one's or a damaged one before anything in it is used.
import type { Database } from "better-sqlite3";

/** `PRAGMA application_id`: "ACMD". A database without it (or with another) is not ours. */
export const APPLICATION_ID = 0x41434d44;

/**
 * The columns of an ended row as src/store/rows.ts checks them, as far as SQL tells (a subset: a row it lets through
 * may still be refused when read, never the other way round). A table made by another program may hold any type.
 * Part of the schema (the index `tasks_unscreened` is defined by it): never edit it, append a migration that makes
 * the index again with the new text. Functions every SQLite has, so that an older sqlite3 can still read the file.
 */
export const ENDED_SHAPE = `(
  typeof(n) = 'integer' AND n >= 1
  AND typeof(id) = 'text' AND length(id) >= 1 AND length(CAST(id AS BLOB)) <= 256
  AND typeof(context_id) = 'text'
  AND typeof(state) = 'text' AND state IN ('completed', 'failed', 'canceled')
  AND typeof(updated_at) = 'text'
  AND updated_at GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9].[0-9][0-9][0-9]Z'
  AND typeof(ended_seq) = 'integer' AND ended_seq >= 1 AND ended_seq < 9007199254740992
  AND (pid IS NULL OR (typeof(pid) = 'integer' AND pid >= 2 AND pid < 9007199254740992))
  AND (pid_start IS NULL OR (typeof(pid_start) = 'text' AND length(pid_start) BETWEEN 1 AND 20
    AND pid_start NOT GLOB '*[^0-9]*'))
  AND typeof(stdout_dropped) = 'integer' AND stdout_dropped >= 0 AND stdout_dropped < 9007199254740992
  AND typeof(stderr_dropped) = 'integer' AND stderr_dropped >= 0 AND stderr_dropped < 9007199254740992
  AND typeof(detail) = 'text'
)`;

/** The rows a start must read whole: those not ended, and those whose columns are not right (ENDED_SHAPE). */
export const UNSCREENED = `${ENDED_SHAPE} IS NOT 1`;

/** The bytes of a row's `detail`, as the index tasks_detail_bytes holds them (part of the schema, as above). */
export const DETAIL_BYTES = "length(CAST(detail AS BLOB))";

/**
 * Migrations in order: the database's `PRAGMA user_version` says how many have run. A new version appends one
 * (never edits an old one) and updates EXPECTED_COLUMNS.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE tasks (
     n INTEGER PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     context_id TEXT NOT NULL,
     state TEXT NOT NULL,
     updated_at TEXT NOT NULL,
     ended_seq INTEGER,
     pid INTEGER,
     pid_start TEXT,
     stdout_dropped INTEGER NOT NULL DEFAULT 0,
     stderr_dropped INTEGER NOT NULL DEFAULT 0,
     bytes INTEGER NOT NULL DEFAULT 0,
     detail TEXT NOT NULL
   ) STRICT;
   CREATE INDEX tasks_by_status ON tasks (updated_at DESC, id DESC);
   CREATE INDEX tasks_by_context ON tasks (context_id, updated_at DESC, id DESC);
   CREATE INDEX tasks_by_state ON tasks (state, updated_at DESC, id DESC);
   CREATE INDEX tasks_by_end ON tasks (ended_seq) WHERE ended_seq IS NOT NULL;
   CREATE TABLE chunks (
     task INTEGER NOT NULL REFERENCES tasks (n) ON DELETE CASCADE,
     stream TEXT NOT NULL,
     seq INTEGER NOT NULL,
     text TEXT NOT NULL
   ) STRICT;
   CREATE UNIQUE INDEX chunks_by_task ON chunks (task, stream, seq);
   CREATE TABLE runtime (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) STRICT;`,
  // Push notification configs (CONTRACT 9.3), deleted with their task.
  `CREATE TABLE push_configs (
     n INTEGER PRIMARY KEY,
     task INTEGER NOT NULL REFERENCES tasks (n) ON DELETE CASCADE,
     id TEXT NOT NULL,
     detail TEXT NOT NULL
   ) STRICT;
   CREATE UNIQUE INDEX push_configs_by_task ON push_configs (task, id);`,
  // idempotency/v1's kept first answers (CONTRACT 9.1), oldest first by `n`.
  `CREATE TABLE kept_answers (
     n INTEGER PRIMARY KEY,
     key TEXT NOT NULL UNIQUE,
     hash TEXT NOT NULL,
     at INTEGER NOT NULL,
     kind TEXT NOT NULL,
     text TEXT NOT NULL
   ) STRICT;`,
  // What a start reads, kept by SQLite at each write, so that a start with 100 000 ended tasks reads none of their
  // rows (docs/benchmarks.md, "Where the cost is"): the rows it reads whole (UNSCREENED), and the length of each
  // ended row's detail, which retention counts (DETAIL_BYTES, src/store/retention.ts). Without an index (dropped by
  // another program) the same query scans the table: slower, never wrong.
  `CREATE INDEX tasks_unscreened ON tasks (n) WHERE ${UNSCREENED};
   CREATE INDEX tasks_detail_bytes ON tasks (ended_seq, ${DETAIL_BYTES}) WHERE ended_seq IS NOT NULL;`,
  // A task's messages in `detail` are the core's own (src/core/envelope/message.ts). Rows written before keep the
  // older shape and are read into the new one (src/store/stored-message.ts); the version keeps an older
  // adapter-command, which could not read the new rows, from opening the file. No table changes.
  "-- messages in the core's own shape",
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** What the current version's code reads and writes: checked after migrating, so a mangled schema is caught. */
const EXPECTED_COLUMNS: Record<string, readonly string[]> = {
  tasks: [
    "n",
    "id",
    "context_id",
    "state",
    "updated_at",
    "ended_seq",
    "pid",
    "pid_start",
    "stdout_dropped",
    "stderr_dropped",
    "bytes",
    "detail",
  ],
  chunks: ["task", "stream", "seq", "text"],
  runtime: ["key", "value"],
  push_configs: ["n", "task", "id", "detail"],
  kept_answers: ["n", "key", "hash", "at", "kind", "text"],
};

/** The database can't be used as it is; the message says why, in words for the person who started the runtime. */
export class StateDbError extends Error {
  override name = "StateDbError";
}

export interface Found {
  /** A new, empty file. */
  fresh: boolean;
  version: number;
}

/**
 * Reads what the file is, without changing it; throws a StateDbError when it is another program's, a newer
 * version's, or not versioned. Runs under the lock.
 */
export function checkSchema(db: Database, path: string): Found {
  const applicationId = db.pragma("application_id", { simple: true }) as number;
  const version = db.pragma("user_version", { simple: true }) as number;
  const tables = (
    db
      .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
      .all() as {
      name: string;
    }[]
  ).map((row) => row.name);
  const fresh = applicationId === 0 && version === 0 && tables.length === 0;
  if (!fresh && applicationId !== APPLICATION_ID) {
    const held = tables.length === 0 ? "no tables" : `tables ${tables.slice(0, 5).join(", ")}`;
    throw new StateDbError(
      `${path} is an SQLite database of another program (application_id ${hex(applicationId)}, ${held}), not an adapter-command state database; give --state-dir a directory of its own`,
    );
  }
  if (version > SCHEMA_VERSION) {
    throw new StateDbError(
      `${path} was written by a newer adapter-command (schema version ${version}; this one reads up to ${SCHEMA_VERSION}); run that version, or give another --state-dir`,
    );
  }
  if (!fresh && version < 1) throw new StateDbError(`${path} is damaged: it carries no schema version`);
  return { fresh, version };
}

/** Brings a checked database to SCHEMA_VERSION, then makes sure its tables are what this version reads and writes. */
export function migrate(db: Database, path: string, { fresh, version }: Found): void {
  if (version < SCHEMA_VERSION) {
    db.transaction(() => {
      for (let next = version; next < SCHEMA_VERSION; next++) db.exec(MIGRATIONS[next] as string);
      if (fresh) db.pragma(`application_id = ${APPLICATION_ID}`);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  }
  for (const [table, columns] of Object.entries(EXPECTED_COLUMNS)) {
    const found = new Set((db.pragma(`table_info(${table})`) as { name: string }[]).map((column) => column.name));
    const missing = columns.filter((column) => !found.has(column));
    if (missing.length > 0) {
      const what = found.size === 0 ? `has no table ${table}` : `lacks ${missing.join(", ")} in table ${table}`;
      throw new StateDbError(`${path} is damaged: it ${what}`);
    }
  }
}

function hex(value: number): string {
  return `0x${(value >>> 0).toString(16).padStart(8, "0")}`;
}
