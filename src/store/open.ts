// `--state-dir DIR`: the one call that opens DIR/state.db for a runtime (CONTRACT 5.5), or says in words why it
// can't (the runtime then exits 2). SQLite is loaded here, only when a state dir is given, so other commands start
// as fast as before.
import { randomUUID } from "node:crypto";
import {
  accessSync,
  chmodSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Database } from "better-sqlite3";
import type { TaskStore } from "../core/store.js";
import { describeDbError, isDamaged } from "./db-errors.js";
import { clearOwner, holdDirectory, holderOf, StateDirHeld, switchToWal, takeLock, writeOwner } from "./lock.js";
import { nativeModuleProblem } from "./native-module.js";
import type { RecoverOptions } from "./recover.js";
import { makeReserve } from "./reserve.js";
import { checkSchema, migrate, StateDbError } from "./schema.js";

export const DB_FILE = "state.db";
/** 64 MiB of 4 KiB pages. */
const AUTO_CHECKPOINT_PAGES = 16384;
/** SQLite's page cache of the database, in KiB. */
const PAGE_CACHE_KIB = 4096;
/** The log file is cut back to this size after a checkpoint. */
const WAL_SIZE_LIMIT = 16 * 1024 * 1024;

export interface StateStoreOptions {
  /** Output a task record keeps, both streams together. */
  outputLimit: number;
  /** Start-up lines and warnings (skipped rows, failed writes). */
  log: (line: string) => void;
  keptEnded?: number;
  keptEndedBytes?: number;
  flushMs?: number;
  now?: () => Date;
  /** Tests hand in a stand-in for the leftover killer. */
  killLeftovers?: RecoverOptions["killLeftovers"];
  /** `--instance`: must be the one the state dir keeps, if it keeps one (CONTRACT 9.2). */
  instance?: string;
}

export type OpenedStore =
  | { ok: true; store: TaskStore; instanceId: string }
  | { ok: false; message: string; exitCode: 2 };

export async function openStateStore(dir: string, options: StateStoreOptions): Promise<OpenedStore> {
  const root = resolve(dir);
  const path = join(root, DB_FILE);
  const fail = (message: string): OpenedStore => ({ ok: false, message, exitCode: 2 });
  try {
    makeDirectory(root);
    if (!statSync(root).isDirectory()) throw Object.assign(new Error("not a directory"), { code: "ENOTDIR" });
    accessSync(root, constants.W_OK);
  } catch (error) {
    return fail(`cannot use --state-dir ${root}: ${describeDbError(error)}`);
  }
  const open = checkPermissions(root);
  if (open) return fail(open);
  let held: Awaited<ReturnType<typeof holdDirectory>>;
  try {
    held = await holdDirectory(root);
    if (held === "held") return fail(new StateDirHeld(root, holderOf(root, path)).message);
    createPrivate(path);
  } catch (error) {
    if (held !== undefined && held !== "held") held.close();
    return fail(`cannot use --state-dir ${root}: ${describeDbError(error)}`);
  }
  const dirLock = held;
  const [{ default: Sqlite }, { SqliteStore }, { recoverState }] = await Promise.all([
    import("better-sqlite3"),
    import("./sqlite.js"),
    import("./recover.js"),
  ]);
  let db: Database;
  try {
    // No busy timeout: a state dir held by another runtime is refused at once.
    db = new Sqlite(path, { timeout: 0 });
  } catch (error) {
    dirLock?.close();
    return fail(
      nativeModuleProblem(error) ?? `cannot use --state-dir ${root}: cannot open ${path}: ${describeDbError(error)}`,
    );
  }
  try {
    prepareDatabase(db, root, path);
    const instanceId = keptInstanceId(db, path, options.instance);
    const now = options.now?.() ?? new Date();
    const recovery = recoverState(db, path, {
      now,
      outputLimit: options.outputLimit,
      warn: options.log,
      ...(options.killLeftovers ? { killLeftovers: options.killLeftovers } : {}),
    });
    const reserve = makeReserve(root, options.log);
    const store = new SqliteStore(db, path, {
      ...(reserve ? { reserve } : {}),
      outputLimit: options.outputLimit,
      ...(options.keptEnded !== undefined ? { keptEnded: options.keptEnded } : {}),
      ...(options.keptEndedBytes !== undefined ? { keptEndedBytes: options.keptEndedBytes } : {}),
      ...(options.flushMs !== undefined ? { flushMs: options.flushMs } : {}),
      warn: options.log,
      skipped: recovery.skipped,
      onClose: () => {
        clearOwner(root);
        dirLock?.close();
      },
    });
    store.applyRetention();
    writeOwner(root);
    const { restored, interrupted, skipped, killed } = recovery;
    if (restored > 0 || skipped.length > 0) {
      const parts = [`restored ${restored} task(s) from ${path}`, `${interrupted} had not ended and are failed`];
      if (skipped.length > 0) parts.push(`${skipped.length} row(s) of the wrong shape skipped`);
      if (killed.length > 0) parts.push(`leftover processes of ${killed.length} task(s) killed`);
      options.log(parts.join("; "));
    }
    return { ok: true, store, instanceId };
  } catch (error) {
    db.close();
    dirLock?.close();
    if (error instanceof StateDirHeld || error instanceof StateDbError) return fail(error.message);
    if (isDamaged(error)) return fail(`${path} is damaged (${describeDbError(error)}); move it away to start afresh`);
    return fail(`cannot use --state-dir ${root}: ${describeDbError(error)}`);
  }
}

/**
 * Takes the lock, then checks and migrates the file; throws StateDirHeld, StateDbError or SQLite's own errors.
 * Nothing is written before the file is known to be ours, whole, and of a version this one reads.
 */
export function prepareDatabase(db: Database, root: string, path: string): void {
  takeLock(db, root, path);
  if (db.readonly) throw new StateDbError(`${path} can't be written (${describeDbError({ code: "EACCES" })})`);
  const found = checkSchema(db, path);
  checkIntegrity(db, path);
  switchToWal(db, path);
  migrate(db, path, found);
  // A commit reaches the operating system before the call returns, so a crash of this process loses nothing; only
  // a power cut may lose the last commits (WAL keeps the file whole either way).
  db.pragma("synchronous = NORMAL");
  db.pragma("foreign_keys = ON");
  // Checkpoints copy the log into the database and wait for the disk twice: the store runs them when it has been
  // quiet a moment (src/store/sqlite.ts), and SQLite by itself only once the log has grown this large.
  db.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT}`);
  // SQLite's own page cache, on top of the system's cache of the same file: better-sqlite3 builds it at 16 MiB, which
  // a state dir of 100 000 tasks fills as its rows are read (a third of the memory such a runtime holds; docs/
  // benchmarks.md, "How cost grows with kept tasks"). A page list and the indexes' upper levels fit in a quarter.
  db.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
}

/**
 * The runtime's instance id, made at the state dir's first start and kept in it (CONTRACT 9.2); an `--instance`
 * that differs from the kept one is refused.
 */
function keptInstanceId(db: Database, path: string, given: string | undefined): string {
  const row = db.prepare("SELECT value FROM runtime WHERE key = 'instance_id'").get() as { value: string } | undefined;
  if (row && given !== undefined && row.value !== given)
    throw new StateDbError(
      `--instance ${given} differs from the instance id ${row.value} that ${path} keeps; leave --instance out, or give another --state-dir`,
    );
  if (row) return row.value;
  const made = given ?? randomUUID();
  db.prepare("INSERT INTO runtime (key, value) VALUES ('instance_id', ?)").run(made);
  return made;
}

/**
 * Above this size `PRAGMA quick_check`, which reads every page, is not run at open (at 100 000 tasks it alone would
 * take most of the second a start may take; docs/benchmarks.md): the header is compared with the file's size
 * instead, and a damaged page is found when it is read (the task on it is then skipped with a warning).
 */
export const FULL_CHECK_MAX_BYTES = 64 * 1024 * 1024;

/** A damaged file is refused before anything in it is used or changed. */
function checkIntegrity(db: Database, path: string): void {
  if (statSync(path).size > FULL_CHECK_MAX_BYTES) {
    checkHeader(path);
    return;
  }
  const problems = (db.pragma("quick_check(3)") as { quick_check: string }[]).map((row) => row.quick_check);
  if (problems.length !== 1 || problems[0] !== "ok")
    throw new StateDbError(`${path} is damaged (${problems.join("; ")}); move it away to start afresh`);
}

/**
 * The bounded check of a large file: the page count its header gives (when the header says it is current) times the
 * page size must be the file's size; a file cut short or grown with junk fails it. See the SQLite file format,
 * "The Database Header" (offsets 16, 24, 28 and 92).
 */
function checkHeader(path: string): void {
  const header = Buffer.alloc(100);
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    readSync(fd, header, 0, 100, 0);
  } finally {
    closeSync(fd);
  }
  const pageSize = header.readUInt16BE(16) === 1 ? 65536 : header.readUInt16BE(16);
  const current = header.readUInt32BE(24) === header.readUInt32BE(92);
  const pages = header.readUInt32BE(28);
  const size = statSync(path).size;
  if (!current || pages === 0) return;
  if (pages * pageSize !== size)
    throw new StateDbError(
      `${path} is damaged (its header counts ${pages} pages of ${pageSize} bytes, but the file holds ${size} bytes); move it away to start afresh`,
    );
}

/**
 * mkdir -p, one level at a time: Node's recursive mkdir never returns on some pseudo file systems (/proc). What it
 * creates is for this user only: the tasks' output may hold secrets (docs/security.md, section 8).
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  let current = dir;
  while (!existsSync(current)) {
    missing.unshift(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  for (const path of missing) mkdirSync(path, { mode: 0o700 });
}

/**
 * Why the state dir can't be trusted, or undefined: a directory others may write in could hold a forged state.db,
 * and the rows in it say which processes a restart kills (docs/security.md "Trusting nothing on disk").
 */
function checkPermissions(root: string): string | undefined {
  const { mode } = statSync(root);
  if ((mode & 0o022) === 0) return undefined;
  const who = [mode & 0o020 ? "its group" : "", mode & 0o002 ? "every user" : ""].filter(Boolean).join(" and ");
  const octal = (mode & 0o7777).toString(8).padStart(4, "0");
  return `cannot use --state-dir ${root}: it can be written by ${who} (mode ${octal}), who could then forge the tasks it keeps; make it private (chmod go-w ${root})`;
}

/** state.db is for this user only (its tasks' output may hold secrets); SQLite gives its log file the same mode. */
function createPrivate(path: string): void {
  closeSync(openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600));
  if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
}
