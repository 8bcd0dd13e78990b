// A start on a state dir, under its lock (CONTRACT 5.5): every row is screened, tasks a crash left unfinished end as
// `failed` (infrastructure, runtime_restarted) with the output they had printed, what is left of their processes
// is killed when its identity still matches, and every size is recounted from what is stored. An ended row whose
// columns SQL finds right is counted without being decoded: its `detail` is checked when it is first read
// (src/store/sqlite.ts), so a start costs little more with 100 000 tasks kept than with none (docs/reference.md).
import { readFileSync } from "node:fs";
import type { Database } from "better-sqlite3";
import { sharedContainment } from "../core/containment/containment.js";
import { REAL_HOST } from "../core/containment/host.js";
import { ENDS } from "../core/task/outcome.js";
import { killLeftovers } from "../core/task/process-identity.js";
import { isTerminal, TASK_STATES } from "../core/task/task.js";
import type { TaskRecord } from "../core/task/task-record.js";
import { checkTaskRow, detailOf, recordOfRow } from "./rows.js";
import { lastEndedSeq } from "./task-statements.js";

export interface Recovery {
  /** Tasks read back (ended ones and the unfinished ones now failed). */
  restored: number;
  interrupted: number;
  /** Ids of rows of the wrong shape: never used, never changed. */
  skipped: string[];
  /** The unfinished tasks whose leftover processes were killed. */
  killed: string[];
}

export interface RecoverOptions {
  now: Date;
  outputLimit: number;
  warn: (line: string) => void;
  /** Kills what an unfinished task left (src/core/task/process-identity.ts); true when anything was signalled. */
  killLeftovers?: (task: TaskRecord) => boolean;
}

const ENDED_STATES = TASK_STATES.filter((state) => isTerminal(state))
  .map((state) => `'${state}'`)
  .join(", ");

/**
 * The columns of an ended row as src/store/rows.ts checks them, as far as SQL tells (a subset: a row it lets through
 * may still be refused when read, never the other way round). A table made by another program may hold any type.
 */
export const ENDED_SHAPE = `(
  typeof(n) = 'integer' AND n >= 1
  AND typeof(id) = 'text' AND length(id) >= 1 AND octet_length(id) <= 256
  AND typeof(context_id) = 'text'
  AND typeof(state) = 'text' AND state IN (${ENDED_STATES})
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

export function recoverState(db: Database, path: string, options: RecoverOptions): Recovery {
  const { now, warn } = options;
  const skipped: string[] = [];
  const unfinished: TaskRecord[] = [];
  // `IS 1`/`IS NOT 1`: a NULL in a row makes the screen NULL, and such a row is checked whole.
  let restored = (db.prepare(`SELECT count(*) AS n FROM tasks WHERE ${ENDED_SHAPE} IS 1`).get() as { n: number }).n;
  const rest = db.prepare(`SELECT * FROM tasks WHERE ${ENDED_SHAPE} IS NOT 1`);
  for (const row of rest.iterate() as Iterable<Record<string, unknown>>) {
    const id = typeof row.id === "string" ? row.id : String(row.id);
    const checked = checkTaskRow(row);
    const record = checked.ok ? recordOfRow(checked.value, options.outputLimit) : checked;
    if (!record.ok) {
      skipped.push(id);
      warn(`task ${id} in ${path} has a row of the wrong shape (${record.problem}); it is skipped`);
      continue;
    }
    restored += 1;
    if (!isTerminal(record.value.state)) unfinished.push(record.value);
  }

  // Clock ticks since boot mean nothing after a reboot, and nothing of ours outlives one: kill only on the same boot.
  const boot = bootId();
  const lastBoot = (db.prepare("SELECT value FROM runtime WHERE key = 'boot_id'").get() as { value?: unknown })?.value;
  // Only a cgroup inside the one this tool makes its task cgroups in is ever killed (the containment is chosen once).
  const kill =
    options.killLeftovers ??
    ((task: TaskRecord) => killLeftovers(task, REAL_HOST, sharedContainment().guard.cgroupRoot));
  const killed: string[] = [];
  if (boot !== undefined && boot === lastBoot) {
    for (const record of unfinished) {
      if (record.pid === undefined) continue;
      if (kill(record)) killed.push(record.id);
    }
  }

  const update = db.prepare(
    "UPDATE tasks SET state = ?, updated_at = ?, ended_seq = ?, detail = ? WHERE id = ? AND ended_seq IS NULL",
  );
  // The output a crash left is numbered too: the failing status comes after it (CONTRACT 9.4).
  const lastChunk = db.prepare("SELECT max(seq) AS seq FROM chunks WHERE task = (SELECT n FROM tasks WHERE id = ?)");
  db.transaction(() => {
    let endedSeq = lastEndedSeq(db);
    const at = now.toISOString();
    for (const record of unfinished) {
      const outcome = ENDS.restarted();
      Object.assign(record, {
        state: outcome.state,
        failKind: outcome.failKind,
        reason: outcome.reason,
        exitCode: outcome.exitCode,
        signal: outcome.signal,
        statusText: outcome.text,
        endedAt: at,
        updatedAt: at,
        seq: Math.max(record.seq, (lastChunk.get(record.id) as { seq: number | null }).seq ?? 0),
        statusEvents: record.statusEvents + 1,
      });
      update.run(record.state, at, ++endedSeq, detailOf(record), record.id);
    }
    // Sizes are never believed: each task's bytes are its row's text and its stored output, counted again (and
    // written only where they differ, so a start writes nothing when they all agree).
    const counted =
      "octet_length(detail) + coalesce((SELECT sum(octet_length(text)) FROM chunks WHERE task = tasks.n), 0)";
    db.exec(`UPDATE tasks SET bytes = ${counted} WHERE bytes IS NOT ${counted}`);
    if (boot !== undefined) db.prepare("INSERT OR REPLACE INTO runtime (key, value) VALUES ('boot_id', ?)").run(boot);
  })();
  return { restored, interrupted: unfinished.length, skipped, killed };
}

function bootId(): string | undefined {
  try {
    return readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}
