// A start on a state dir, under its lock (CONTRACT 5.5): every row is screened, tasks a crash left unfinished end as
// `failed` (infrastructure, runtime_restarted) with the output they had printed, what is left of their processes
// is killed when its identity still matches, and every size is recounted from what is stored. An ended row whose
// columns SQL finds right is counted without being decoded: its `detail` is checked when it is first read
// (src/store/sqlite.ts), and only the other rows are read at all (through an index of them, src/store/schema.ts),
// so a start costs little more with 100 000 tasks kept than with none (docs/reference.md).
import { readFileSync } from "node:fs";
import type { Database } from "better-sqlite3";
import { sharedContainment } from "../core/containment/containment.js";
import { REAL_HOST } from "../core/containment/host.js";
import { ENDS } from "../core/task/outcome.js";
import { killLeftovers } from "../core/task/process-identity.js";
import { isTerminal } from "../core/task/task.js";
import type { TaskRecord } from "../core/task/task-record.js";
import { checkTaskRow, detailOf, recordOfRow } from "./rows.js";
import { UNSCREENED } from "./schema.js";
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

export function recoverState(db: Database, path: string, options: RecoverOptions): Recovery {
  const { now, warn } = options;
  const skipped: string[] = [];
  const unfinished: TaskRecord[] = [];
  // Every row but those read whole here is an ended row of the right columns. `IS NOT 1`: a NULL in a row makes
  // the screen NULL, and such a row is read whole. The index tasks_unscreened holds just these rows.
  let restored = (db.prepare("SELECT count(*) AS n FROM tasks").get() as { n: number }).n;
  const rest = db.prepare(`SELECT * FROM tasks WHERE ${UNSCREENED}`);
  for (const row of rest.iterate() as Iterable<Record<string, unknown>>) {
    restored -= 1;
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
    // Sizes are never believed, so none is recounted here: retention counts each from the stored text where it
    // uses it (src/store/retention.ts).
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
