// The process group of a task's runner (CONTRACT 3.2: "its own process group"): every guard signals it; where
// nothing else is available (macOS) it is the only guard.
import { type Host, hasProc, readStat } from "./host.js";

/**
 * Signals the group `pgid`. With `leaderStart`, only while its leader is still that very process (pid reuse);
 * without /proc that cannot be checked and the group is signalled as it is. Never group 0/1, nor our own group.
 */
export function signalGroup(host: Host, pgid: number, signal: NodeJS.Signals, leaderStart?: string): boolean {
  if (!Number.isInteger(pgid) || pgid <= 1 || pgid === host.self) return false;
  if (leaderStart !== undefined && hasProc(host.procRoot)) {
    // While the leader is that process, its pid (the group's id) cannot name anything else.
    if (readStat(pgid, host.procRoot)?.start !== leaderStart) return false;
  }
  const own = readStat(host.self, host.procRoot)?.pgrp;
  if (own === pgid) return false;
  try {
    host.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: the group is gone
  }
}
