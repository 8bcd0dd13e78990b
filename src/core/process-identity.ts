// Tells whether a pid still names a process we started (its start time, read from /proc on Linux), and finds what a
// crashed runtime left behind so a restart can end it without ever signalling a process that is not ours.
import { readdirSync, readFileSync } from "node:fs";

/** The process's start time in clock ticks since boot, or undefined where it can't be read. */
export function processStartTime(pid: number): string | undefined {
  return statOf(pid)?.startTime;
}

/** One line of the process table: what /proc/<pid>/stat says. */
export interface ProcessEntry {
  pid: number;
  /** Its process group. */
  pgid: number;
  /** Clock ticks since boot. */
  startTime: string;
}

/** Every process /proc lists now (none where there is no /proc). */
export function readProcessTable(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return [];
  }
  const table: ProcessEntry[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const entry = statOf(Number(name));
    if (entry) table.push(entry);
  }
  return table;
}

/** What identifies a task's processes: the leader's pid and start time, and the task's environment marker. */
export interface TaskProcesses {
  id: string;
  instanceId: string;
  pid?: number | undefined;
  pidStart?: string | undefined;
}

/** What of a task is still running: its whole group (the leader is still the one started), or single processes. */
export interface Leftovers {
  group?: number;
  pids: ProcessEntry[];
}

export interface Self {
  pid: number;
  pgid: number;
}

/**
 * The processes a crashed runtime left of `task`, from a snapshot of the process table. The leader was started in
 * a process group of its own (CONTRACT 3.2), so its pid is the group's id.
 * - A pid of 0 or 1, our own pid or our own group: nothing, whatever the row says (`kill(-1)` would reach every
 *   process we may signal).
 * - The leader lives with the recorded start time: the group is ours, all of it (and so is the leader).
 * - Another process has the pid now: the pid was free to be taken again, which Linux allows only once no process is
 *   left in a group of that id, so nothing of ours is left.
 * - The leader is gone: members of the group may live on, but a group of that id may also be a later one whose
 *   leader has gone too. A member counts as ours only if it started no earlier than our leader and its environment
 *   carries this task's marker (`AIWG_A2A_TASK_ID` and `AIWG_A2A_INSTANCE_ID`); one whose environment can't be
 *   read, or was cleared, is left alone.
 */
export function leftoversOf(
  task: TaskProcesses,
  table: readonly ProcessEntry[],
  self: Self,
  environment: (pid: number) => string[] | undefined,
): Leftovers {
  const { pid, pidStart } = task;
  const none: Leftovers = { pids: [] };
  if (pid === undefined || !Number.isSafeInteger(pid) || pid <= 1 || pidStart === undefined || !/^\d+$/.test(pidStart))
    return none;
  if (pid === self.pid || pid === self.pgid) return none;
  const leader = table.find((entry) => entry.pid === pid);
  if (leader) {
    if (leader.startTime !== pidStart) return none;
    // A leader that moved to another group of its own is still ours; the group it left is too.
    return { group: pid, pids: leader.pgid === pid || leader.pgid === self.pgid ? [] : [leader] };
  }
  const marker = [`AIWG_A2A_TASK_ID=${task.id}`, `AIWG_A2A_INSTANCE_ID=${task.instanceId}`];
  const pids = table.filter((entry) => {
    if (entry.pgid !== pid || entry.pid <= 1 || entry.pid === self.pid || entry.pgid === self.pgid) return false;
    if (BigInt(entry.startTime) < BigInt(pidStart)) return false;
    const variables = environment(entry.pid);
    return variables !== undefined && marker.every((line) => variables.includes(line));
  });
  return { pids };
}

/**
 * Kills what a crashed runtime left of `task` (see `leftoversOf`) with SIGKILL; returns the pids signalled (the
 * group as its negative id). Each single process is checked again just before its signal, so one that ended
 * meanwhile and whose pid was taken again is spared.
 */
export function killLeftovers(task: TaskProcesses, table: readonly ProcessEntry[] = readProcessTable()): number[] {
  const self = { pid: process.pid, pgid: statOf(process.pid)?.pgid ?? process.pid };
  const found = leftoversOf(task, table, self, environmentOf);
  const signalled: number[] = [];
  const kill = (target: number) => {
    try {
      process.kill(target, "SIGKILL");
      signalled.push(target);
    } catch {
      // Gone meanwhile.
    }
  };
  if (found.group !== undefined && found.group > 1 && processStartTime(found.group) === task.pidStart)
    kill(-found.group);
  for (const entry of found.pids) {
    const now = statOf(entry.pid);
    if (entry.pid > 1 && now?.startTime === entry.startTime && now.pgid === entry.pgid) kill(entry.pid);
  }
  return signalled;
}

function statOf(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const pgid = Number(fields[2]);
    const startTime = fields[19];
    if (!Number.isSafeInteger(pgid) || startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
    return { pid, pgid, startTime };
  } catch {
    return undefined;
  }
}

/** The environment a process started with, one `NAME=value` a line, or undefined where it can't be read. */
function environmentOf(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");
  } catch {
    return undefined;
  }
}
