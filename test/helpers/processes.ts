// Processes as /proc tells them; a zombie counts as ended. Where /proc is missing, `kill(pid, 0)` stands in.
import { readdirSync, readFileSync } from "node:fs";

export const HAS_PROC = (() => {
  try {
    return readdirSync("/proc").includes("self");
  } catch {
    return false;
  }
})();

/**
 * Fields of /proc/<pid>/stat after the command name (0: state, 1: ppid, 2: pgrp), or undefined when there is no
 * such process. Where PID 1 does not reap orphans (some containers), a killed process stays a zombie (state "Z")
 * and `kill(pid, 0)` still succeeds for it, so tests read the state instead.
 */
export function procStat(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

const gone = (state: string | undefined) => state === undefined || state === "Z" || state === "X";

/** True when a signal 0 reaches `target` (a pid, or a group as -pgid). */
function signalReaches(target: number): boolean {
  try {
    process.kill(target, 0);
    return true;
  } catch {
    return false;
  }
}

/** True while `kill(-pgid, 0)` reaches a process of the group (zombies count as alive). */
export const groupAlive = (pgid: number) => signalReaches(-pgid);

/** True while the process runs (not gone, not a zombie). */
export function pidRunning(pid: number | string): boolean {
  if (!HAS_PROC) return signalReaches(Number(pid));
  return !gone(procStat(pid)?.[0]);
}

/** The pids of /proc, each with its stat fields. */
function* allProcesses(): Generator<{ pid: number; stat: string[] }> {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat) yield { pid: Number(entry), stat };
  }
}

/** True while any process of group `pgid` runs (zombies count as gone). */
export function groupRunning(pgid: number): boolean {
  if (!HAS_PROC) return signalReaches(-pgid);
  for (const { stat } of allProcesses()) if (Number(stat[2]) === pgid && !gone(stat[0])) return true;
  return false;
}

/** Polls `alive` for up to `ms`; true when it turned false. */
export async function goneWithin(alive: () => boolean, ms = 2000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!alive()) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Polls `check` for up to `ms`; true when it became true. */
export const trueWithin = (check: () => boolean, ms = 2000) => goneWithin(() => !check(), ms);

/** Polls until the group is gone; true when it went within `ms`. */
export const groupGoneWithin = (pgid: number, ms: number) => goneWithin(() => groupRunning(pgid), ms);

/** Best-effort SIGKILL of a group a failed test may have left behind. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** Live children of a process. */
export function childrenOf(pid: number): number[] {
  return [...allProcesses()]
    .filter(({ pid: child, stat }) => stat[1] === String(pid) && pidRunning(child))
    .map((p) => p.pid);
}

/** Live processes whose command line contains `needle`. */
export function processesWith(needle: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const { pid } of allProcesses()) {
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\u0000", " ");
    } catch {
      continue;
    }
    if (cmdline.includes(needle) && pidRunning(pid)) found.push({ pid, cmdline });
  }
  return found;
}

/** Resident set size of a process in bytes (VmRSS), or undefined where it can't be read. */
export function rssOf(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The live processes whose parent is `pid`, with their command lines, read from /proc. */
export function childProcessesOf(pid: number): Array<{ pid: number; cmdline: string }> {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const children: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(procStat(entry)?.[1]) !== pid || !pidRunning(entry)) continue;
    try {
      children.push({
        pid: Number(entry),
        cmdline: readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " "),
      });
    } catch {
      // gone meanwhile
    }
  }
  return children;
}

/** The live children of a tool that are runners: all but its containment watchdog. */
export function runnersOf(pid: number): number[] {
  return childProcessesOf(pid)
    .filter((child) => !child.cmdline.includes("watchdog-main"))
    .map((child) => child.pid);
}

/** The containment watchdog (src/core/containment/watchdog-main) that the tool `pid` started, if one runs. */
export function watchdogOf(pid: number): number | undefined {
  return childProcessesOf(pid).find((child) => child.cmdline.includes("watchdog-main"))?.pid;
}

/**
 * SIGKILLs a tool and its watchdog together, as when a machine loses both: the tool is stopped first, so that it
 * cannot start another watchdog, then the watchdog and the tool are killed.
 */
export function killToolAndWatchdog(pid: number): void {
  process.kill(pid, "SIGSTOP");
  const watchdog = watchdogOf(pid);
  if (watchdog !== undefined) process.kill(watchdog, "SIGKILL");
  process.kill(pid, "SIGKILL");
}

/** The pids a stray-* fixture printed: `runner <pid>`, then `child <pid>` lines (test/fixtures/strays.mjs). */
export function strayPids(text: string): number[] {
  return [...text.matchAll(/^(?:runner|child) (\d+)$/gm)].map((match) => Number(match[1]));
}

/** Polls until none of `pids` runs, for up to `ms`; the ones still running then. */
export async function survivorsAfter(pids: number[], ms: number): Promise<number[]> {
  const until = Date.now() + ms;
  for (;;) {
    const running = pids.filter((pid) => pidRunning(pid));
    if (running.length === 0 || Date.now() >= until) return running;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Best-effort SIGKILL of processes a failing test (or a guard that cannot see them) left behind. */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      if (pidRunning(pid)) process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

export const MiB = 1024 * 1024;

/** VmRSS of a process in KiB; undefined where it can't be read. */
export function rssKiB(pid: number): number | undefined {
  const bytes = rssOf(pid);
  return bytes === undefined ? undefined : bytes / 1024;
}

/** The child of `parentPid` whose command line runs the fixture `fixture`, or undefined when there is none. */
export function childOf(parentPid: number, fixture: string): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(procStat(entry)?.[1]) !== parentPid) continue;
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(`/${fixture}/`)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** A byte count of /proc/<pid>/io (`wchar`, `rchar`), or undefined where it can't be read. */
function ioBytes(pid: number, field: "wchar" | "rchar"): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(readFileSync(`/proc/${pid}/io`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Bytes a process has written (`wchar`), or undefined where it can't be read. */
export const written = (pid: number) => ioBytes(pid, "wchar");

/** Bytes a process has read (`rchar`: from pipes and files alike), or undefined where it can't be read. */
export const readBytes = (pid: number) => ioBytes(pid, "rchar");

/** Running processes whose environment has `name=value` (tasks carry AIWG_A2A_INSTANCE_ID, CONTRACT 3.2). */
export function processesWithEnv(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || !pidRunning(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, "utf8").split("\0").includes(wanted)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
