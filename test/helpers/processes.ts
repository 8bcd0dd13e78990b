// Processes as /proc tells them; a zombie counts as ended.
import { readdirSync, readFileSync } from "node:fs";

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

/** True while the process runs (not gone, not a zombie). */
export function pidRunning(pid: number | string): boolean {
  const state = procStat(pid)?.[0];
  return state !== undefined && state !== "Z" && state !== "X";
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

/** Bytes a process has written (`wchar` of /proc/<pid>/io), or undefined where it can't be read. */
export function written(pid: number): number | undefined {
  try {
    const match = /^wchar:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/io`, "utf8"));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

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
