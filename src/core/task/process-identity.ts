// Tells whether a pid still names the process we started (its start time, read from /proc on Linux), and kills what
// an unfinished task of an earlier run left behind (CONTRACT 5.5: at restart, by identity, never a pid reused since).

import { isAbsolute, relative } from "node:path";
import { Cgroup, isTaskCgroupPath } from "../containment/cgroup.js";
import type { GuardRecord } from "../containment/guard.js";
import { type Host, hasProc, REAL_HOST, readStat } from "../containment/host.js";
import { carriesMarks, type Marks } from "../containment/marker.js";
import { releaseTrace, signalTrace, type TaskTrace } from "../containment/trace.js";
import type { TaskRecord } from "./task-record.js";

/** The process's start time in clock ticks since boot, or undefined where it can't be read. */
export function processStartTime(pid: number): string | undefined {
  return readStat(pid, REAL_HOST.procRoot)?.start;
}

/** What a task record keeps that finds its processes again. */
export type LeftoverRecord = Pick<TaskRecord, "id" | "instanceId" | "pid" | "pidStart" | "guard">;

/**
 * SIGKILL to what an unfinished task of an earlier run left, but only what is proven to be the task's own: no row of
 * state.db is trusted (docs/security.md "Trusting nothing on disk"). Its process group only while the leader is the
 * runner on every field (same pid, same start time, leader of its own group, and its environment carries the task's
 * id and instance id); its cgroup only when the path is one of ours inside `cgroupRoot` (the tool's own cgroup root)
 * and a process in it carries those marks; and on Linux every process whose environment carries them. Never PID 0/1
 * or this process. A cgroup is removed once empty (retried in the background for a few seconds). True when anything
 * was signalled.
 */
export function killLeftovers(record: LeftoverRecord, host: Host = REAL_HOST, cgroupRoot?: string): boolean {
  if (!hasProc(host.procRoot)) return false; // nothing can be proven
  const marks = { taskId: record.id, instanceId: record.instanceId };
  const guards: GuardRecord[] = [{ kind: "marker", ...marks }];
  const cgroup = record.guard?.kind === "cgroup" ? record.guard : undefined;
  const provenCgroup = cgroup && cgroupRoot !== undefined && isOurs(cgroup.path, marks, host, cgroupRoot);
  if (provenCgroup) guards.push(cgroup);
  const leader =
    record.pid !== undefined && record.pidStart !== undefined && isLeaderOf(record.pid, record.pidStart, marks, host)
      ? record.pid
      : undefined;
  const trace: TaskTrace = { pid: leader, pidStart: record.pidStart, guards };
  const sent = signalTrace(trace, "SIGKILL", host);
  if (provenCgroup) releaseWhenEmpty(trace, host, 50);
  return sent > 0;
}

/** The runner itself: alive since `start`, leader of its own group, carrying the task's marks. */
function isLeaderOf(pid: number, start: string, marks: Marks, host: Host): boolean {
  const stat = readStat(pid, host.procRoot);
  return stat?.start === start && stat.pgrp === pid && carriesMarks(pid, start, marks, host);
}

/** A task cgroup of ours, inside the tool's own cgroup root, with a process of the task in it. */
function isOurs(path: string, marks: Marks, host: Host, root: string): boolean {
  const inside = relative(root, path);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside) || !isTaskCgroupPath(path, host)) return false;
  return new Cgroup(path, host).allProcs().some((pid) => {
    const start = readStat(pid, host.procRoot)?.start;
    return start !== undefined && carriesMarks(pid, start, marks, host);
  });
}

/** The killed processes take a moment to go: the cgroup can be removed only then. */
function releaseWhenEmpty(trace: TaskTrace, host: Host, triesLeft: number): void {
  if (releaseTrace(trace, host) || triesLeft <= 0) return;
  setTimeout(() => releaseWhenEmpty(trace, host, triesLeft - 1), 100).unref();
}
