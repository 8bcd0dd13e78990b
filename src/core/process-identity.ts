// Tells whether a pid still names the process we started (its start time, read from /proc on Linux), and kills what
// an unfinished task of an earlier run left behind (CONTRACT 5.5: at restart, by identity, never a pid reused since).

import { signalGroup } from "./containment/group.js";
import type { GuardRecord } from "./containment/guard.js";
import { type Host, hasProc, REAL_HOST, readStat } from "./containment/host.js";
import { releaseTrace, signalTrace, type TaskTrace } from "./containment/trace.js";
import type { TaskRecord } from "./task-record.js";

/** The process's start time in clock ticks since boot, or undefined where it can't be read. */
export function processStartTime(pid: number): string | undefined {
  return readStat(pid, REAL_HOST.procRoot)?.start;
}

/** Kills a process group left by an earlier run, but only if its leader is still the very same process. */
export function killLeftoverGroup(pid: number, startTime: string | undefined): boolean {
  if (startTime === undefined) return false;
  return signalGroup(REAL_HOST, pid, "SIGKILL", startTime);
}

/** What a task record keeps that finds its processes again. */
export type LeftoverRecord = Pick<TaskRecord, "id" | "instanceId" | "pid" | "pidStart" | "guard">;

/**
 * SIGKILL to every process an unfinished task of an earlier run left: its group while the leader is still the runner
 * (same start time), its cgroup (a path of ours under a cgroup2 mount, else ignored), and on Linux every process
 * whose environment carries the task's id and instance id, whether or not the leader lives. Never PID 0/1 or this
 * process. The cgroup is removed once empty (retried in the background for a few seconds). True when anything was
 * signalled.
 */
export function killLeftovers(record: LeftoverRecord, host: Host = REAL_HOST): boolean {
  const guards: GuardRecord[] = [];
  if (record.guard && record.guard.kind !== "marker") guards.push(record.guard);
  if (hasProc(host.procRoot)) {
    const marks = record.guard?.kind === "marker" ? record.guard : { taskId: record.id, instanceId: record.instanceId };
    guards.push({ kind: "marker", taskId: marks.taskId, instanceId: marks.instanceId });
  }
  const trace: TaskTrace = { pid: record.pid, pidStart: record.pidStart, guards };
  const sent = signalTrace(trace, "SIGKILL", host);
  releaseWhenEmpty(trace, host, 50);
  return sent > 0;
}

/** The killed processes take a moment to go: the cgroup can be removed only then. */
function releaseWhenEmpty(trace: TaskTrace, host: Host, triesLeft: number): void {
  if (releaseTrace(trace, host) || triesLeft <= 0) return;
  setTimeout(() => releaseWhenEmpty(trace, host, triesLeft - 1), 100).unref();
}
