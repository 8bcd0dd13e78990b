// One runtime per state dir. The lock is SQLite's own: with `locking_mode=EXCLUSIVE` (set before WAL mode, so no
// shared memory is used) the connection takes an exclusive lock on state.db and holds it until it closes. The kernel drops
// it when the process dies however it dies, so a crashed runtime never leaves a stale lock. A second runtime gets
// SQLITE_BUSY before it has read or written anything. A small owner file names the holder for that message.
// The lock on the file alone would not hold the directory: with state.db moved aside, a second runtime would make a
// new one beside the first. So on Linux the directory itself is held too (`holdDirectory`).
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import type { Database } from "better-sqlite3";
import { processStartTime } from "../core/task/process-identity.js";

export const OWNER_FILE = "owner.json";

/** Another runtime holds the state dir. */
export class StateDirHeld extends Error {
  override name = "StateDirHeld";
  constructor(
    readonly dir: string,
    readonly holder: string,
  ) {
    super(
      `--state-dir ${dir} is in use by another adapter-command runtime (${holder}); one runtime per state dir: stop it, or give this one another directory`,
    );
  }
}

interface Owner {
  pid: number;
  startTime?: string;
  since: string;
}

/**
 * Takes the lock on an open connection (created with a busy timeout of 0), before anything is read; throws
 * StateDirHeld when another process holds it. The lock outlives the transaction that took it.
 */
export function takeLock(db: Database, dir: string, dbPath: string): void {
  db.pragma("locking_mode = EXCLUSIVE");
  try {
    db.exec("BEGIN EXCLUSIVE; COMMIT");
  } catch (error) {
    if ((error as { code?: string }).code === "SQLITE_BUSY") throw new StateDirHeld(dir, holderOf(dir, dbPath));
    throw error;
  }
}

/** WAL mode, once the database is known to be ours: under the exclusive lock it needs no shared-memory file. */
export function switchToWal(db: Database, dbPath: string): void {
  const mode = db.pragma("journal_mode = WAL", { simple: true });
  if (mode !== "wal") throw new Error(`${dbPath} could not be switched to WAL mode (it is in ${String(mode)} mode)`);
}

/** Names this process as the holder (after `takeLock`). */
export function writeOwner(dir: string): void {
  const startTime = processStartTime(process.pid);
  const owner: Owner = { pid: process.pid, ...(startTime ? { startTime } : {}), since: new Date().toISOString() };
  const path = join(dir, OWNER_FILE);
  writeFileSync(`${path}.tmp`, `${JSON.stringify(owner)}\n`, { mode: 0o600 });
  renameSync(`${path}.tmp`, path);
}

/** Removes the owner file if it still names this process. */
export function clearOwner(dir: string): void {
  const path = join(dir, OWNER_FILE);
  if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
}

/**
 * Who holds the lock, in words: the owner file when the process it names still runs (a crashed holder's file may
 * be left behind), else the kernel's own record of the lock in /proc/locks, else no pid.
 */
export function holderOf(dir: string, dbPath: string): string {
  const owner = readOwner(join(dir, OWNER_FILE));
  if (owner && owner.startTime !== undefined && processStartTime(owner.pid) === owner.startTime)
    return `pid ${owner.pid}, holding it since ${owner.since}`;
  const pid = lockHolderPid(dbPath);
  return pid === undefined ? "its pid could not be found" : `pid ${pid}`;
}

function readOwner(path: string): Owner | undefined {
  try {
    const value = JSON.parse(readFileSync(path, "utf8")) as Partial<Owner>;
    if (!Number.isSafeInteger(value.pid) || typeof value.since !== "string") return undefined;
    const owner: Owner = { pid: value.pid as number, since: value.since };
    if (typeof value.startTime === "string") owner.startTime = value.startTime;
    return owner;
  } catch {
    return undefined;
  }
}

/** The pid of another process holding a POSIX lock on `path`, from /proc/locks (Linux). */
function lockHolderPid(path: string): number | undefined {
  try {
    const inode = String(statSync(path).ino);
    for (const line of readFileSync("/proc/locks", "utf8").split("\n")) {
      // "1: POSIX  ADVISORY  WRITE 1234 fe:00:2146992 1073741826 1073742335"
      const fields = line.trim().split(/\s+/);
      const pid = Number(fields[4]);
      if (fields[1] === "POSIX" && fields[5]?.split(":")[2] === inode && pid > 0 && pid !== process.pid) return pid;
    }
  } catch {
    // No /proc/locks: the pid stays unknown.
  }
  return undefined;
}

/**
 * Holds the directory itself, whatever is done to the files in it (Linux): an abstract Unix socket named after the
 * directory's device and inode can be bound by one process at a time, and the kernel lets go of it when that process
 * dies however it dies. It accepts no connection. "held" when another process holds it; undefined where there are no
 * abstract sockets (elsewhere the lock on state.db is the only one). docs/security.md says what this leaves open.
 */
export function holdDirectory(dir: string): Promise<Server | "held" | undefined> {
  if (process.platform !== "linux") return Promise.resolve(undefined);
  const { dev, ino } = statSync(dir, { bigint: true });
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.destroy());
    server.maxConnections = 0;
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "EADDRINUSE" ? "held" : undefined));
    server.listen(`\0adapter-command/state-dir/${dev}/${ino}`, () => {
      server.unref();
      resolve(server);
    });
  });
}
