// Tells whether a pid still names the process we started: its start time, read from /proc (Linux).
import { readFileSync } from "node:fs";

/** The process's start time in clock ticks since boot, or undefined where it can't be read. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19];
  } catch {
    return undefined;
  }
}

/** Kills a process group left by an earlier run, but only if its leader is still the very same process. */
export function killLeftoverGroup(pid: number, startTime: string | undefined): boolean {
  if (startTime === undefined || processStartTime(pid) !== startTime) return false;
  try {
    process.kill(-pid, "SIGKILL");
    return true;
  } catch {
    return false;
  }
}
