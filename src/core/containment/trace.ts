// A task's processes found again from what its record keeps (runner pid, its start time, the guard's identity),
// whether or not the group leader still lives: for the watchdog once the tool is gone, and for the cleanup after a
// restart (CONTRACT 3.2 and 5.5; docs/security.md "Containment").

import { signalGroup } from "./group.js";
import type { GuardRecord } from "./guard.js";
import { guardedAlive, releaseGuarded, signalGuarded } from "./guard.js";
import { type Host, hasProc, isEnded, readStat } from "./host.js";

export interface TaskTrace {
  /** The runner, leader of the task's process group. */
  pid?: number | undefined;
  /** Its start time: without it the group is never signalled (the pid may name another process by now). */
  pidStart?: string | undefined;
  /** The guard's identity; a marker record may be given even when the task ran under another guard. */
  guards: GuardRecord[];
}

const reach = (trace: TaskTrace) => ({ notBefore: trace.pidStart === undefined ? undefined : Number(trace.pidStart) });

/**
 * Signals the group (if its leader is still the runner) and whatever the guards find; how many were signalled.
 * `unchecked`: where /proc is missing (no start time to check), the group is signalled as it is; only the watchdog
 * does so, moments after the tool died, never a restart that may come after a reboot.
 */
export function signalTrace(trace: TaskTrace, signal: NodeJS.Signals, host: Host, unchecked = false): number {
  let sent = 0;
  const checkable = trace.pidStart !== undefined || (unchecked && !hasProc(host.procRoot));
  if (trace.pid !== undefined && checkable && signalGroup(host, trace.pid, signal, trace.pidStart)) sent += 1;
  for (const guard of trace.guards) sent += signalGuarded(guard, signal, host, reach(trace));
  return sent;
}

/** True while the runner or anything a guard finds still runs. */
export function traceAlive(trace: TaskTrace, host: Host): boolean {
  if (trace.pid !== undefined && hasProc(host.procRoot)) {
    const leader = readStat(trace.pid, host.procRoot);
    if (!isEnded(leader) && leader?.start === trace.pidStart) return true;
  }
  return trace.guards.some((guard) => guardedAlive(guard, host, reach(trace)));
}

/** Frees what the guards hold (the cgroup); false while something can't be freed yet. */
export function releaseTrace(trace: TaskTrace, host: Host): boolean {
  return trace.guards.every((guard) => releaseGuarded(guard, host));
}
