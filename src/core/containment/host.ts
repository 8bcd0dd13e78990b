// What the guards read and signal: the /proc root, the kill call and the process that must never be hit. Tests
// hand in a directory of fake /proc files and a kill that only records (docs/security.md, "Containment").
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from "node:fs";

export interface Host {
  procRoot: string;
  kill(pid: number, signal: NodeJS.Signals): void;
  /** Never signalled, nor its process group: the tool itself (or the watchdog). */
  self: number;
}

export const REAL_HOST: Host = {
  procRoot: "/proc",
  kill: (pid, signal) => process.kill(pid, signal),
  self: process.pid,
};

export interface ProcStat {
  /** R, S, D, Z, X, ... */
  state: string;
  ppid: number;
  pgrp: number;
  /** Start time in clock ticks since boot (a decimal string, as /proc gives it). */
  start: string;
}

/** A process's stat line, or undefined when there is no such process (or no /proc). */
export function readStat(pid: number | string, procRoot: string): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`${procRoot}/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
  const fields = text
    .slice(text.lastIndexOf(")") + 2)
    .trimEnd()
    .split(" ");
  const [state, ppid, pgrp] = fields;
  const start = fields[19];
  if (state === undefined || start === undefined) return undefined;
  return { state, ppid: Number(ppid), pgrp: Number(pgrp), start };
}

/** Gone or a zombie: where PID 1 does not reap orphans, a killed process stays a zombie, which counts as ended. */
export function isEnded(stat: ProcStat | undefined): boolean {
  return stat === undefined || stat.state === "Z" || stat.state === "X";
}

export function hasProc(procRoot: string): boolean {
  return existsSync(`${procRoot}/self/stat`);
}

/** The numeric entries of /proc, at most `limit` of them (the scan stays bounded whatever the machine runs). */
export function listPids(procRoot: string, limit: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync(procRoot);
  } catch {
    return [];
  }
  const pids: number[] = [];
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    pids.push(Number(entry));
    if (pids.length >= limit) break;
  }
  return pids;
}

let scratch = Buffer.alloc(64 * 1024);

/**
 * A process's initial environment (NUL-separated `KEY=value` entries), at most `maxBytes` of it; undefined when it
 * can't be read (gone, another user's, a zombie reads as empty). The buffer is reused: use it before the next call.
 */
export function readEnviron(pid: number, procRoot: string, maxBytes: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(`${procRoot}/${pid}/environ`, "r");
  } catch {
    return undefined;
  }
  try {
    let length = 0;
    for (;;) {
      if (length === scratch.length) {
        if (length >= maxBytes) break;
        const bigger = Buffer.alloc(Math.min(maxBytes, scratch.length * 2));
        scratch.copy(bigger, 0, 0, length);
        scratch = bigger;
      }
      const read = readSync(fd, scratch, length, scratch.length - length, null);
      if (read === 0) break;
      length += read;
    }
    return scratch.subarray(0, length);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Sends a signal unless the target is PID 0/1 or ourselves; false when it could not be sent (ESRCH, EPERM). */
export function signalProcess(host: Host, pid: number, signal: NodeJS.Signals): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || pid === host.self) return false;
  try {
    host.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}
