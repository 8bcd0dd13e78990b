// The marker guard's scan (CONTRACT 3.2): every process of a task inherits AIWG_A2A_TASK_ID and
// AIWG_A2A_INSTANCE_ID, so /proc/*/environ finds the descendants that left the process group. Bounded: at most
// MAX_PROCESSES entries and MAX_ENVIRON_BYTES of each environment; a process is signalled only while its start time
// is still the one read with its environment, never PID 0/1 or ourselves (docs/security.md, "Containment").
import { type Host, isEnded, listPids, readEnviron, readStat, signalProcess } from "./host.js";

export interface Marks {
  taskId: string;
  instanceId: string;
}

const TASK_MARK = "AIWG_A2A_TASK_ID";
const INSTANCE_MARK = "AIWG_A2A_INSTANCE_ID";

/** More than any pid_max allows by default (4 194 304 is the kernel's ceiling, and that many would take seconds). */
const MAX_PROCESSES = 100_000;
/** The kernel caps a new process's arguments and environment together at a quarter of its stack limit (2 MiB by default). */
const MAX_ENVIRON_BYTES = 8 * 1024 * 1024;

/** The marks a spawn's environment carries, if both are there. */
export function marksOf(env: NodeJS.ProcessEnv): Marks | undefined {
  const taskId = env[TASK_MARK];
  const instanceId = env[INSTANCE_MARK];
  return taskId && instanceId ? { taskId, instanceId } : undefined;
}

export interface MarkedProcess {
  pid: number;
  start: string;
}

export interface ScanOptions {
  /** Start time (clock ticks) of the task's first process: anything older cannot descend from it. */
  notBefore?: number;
}

/** Live processes whose environment carries both marks. */
export function findMarked(marks: Marks, host: Host, options: ScanOptions = {}): MarkedProcess[] {
  const task = Buffer.from(`${TASK_MARK}=${marks.taskId}\0`);
  const instance = Buffer.from(`${INSTANCE_MARK}=${marks.instanceId}\0`);
  const found: MarkedProcess[] = [];
  for (const pid of listPids(host.procRoot, MAX_PROCESSES)) {
    if (pid <= 1 || pid === host.self) continue;
    const before = readStat(pid, host.procRoot);
    if (isEnded(before) || (options.notBefore !== undefined && Number(before?.start) < options.notBefore)) continue;
    const environ = readEnviron(pid, host.procRoot, MAX_ENVIRON_BYTES);
    if (!environ || !hasEntry(environ, task) || !hasEntry(environ, instance)) continue;
    // The environment read belongs to the process whose start time was read before it (not a pid reused between).
    const after = readStat(pid, host.procRoot);
    if (after?.start === before?.start) found.push({ pid, start: after?.start as string });
  }
  return found;
}

/** True when the live process `pid`, started at `start`, carries both marks: one of the task's own processes. */
export function carriesMarks(pid: number, start: string, marks: Marks, host: Host): boolean {
  if (pid <= 1 || pid === host.self) return false;
  const before = readStat(pid, host.procRoot);
  if (isEnded(before) || before?.start !== start) return false;
  const environ = readEnviron(pid, host.procRoot, MAX_ENVIRON_BYTES);
  const marked =
    !!environ &&
    hasEntry(environ, Buffer.from(`${TASK_MARK}=${marks.taskId}\0`)) &&
    hasEntry(environ, Buffer.from(`${INSTANCE_MARK}=${marks.instanceId}\0`));
  return marked && readStat(pid, host.procRoot)?.start === start;
}

/** Signals what `findMarked` finds, each after checking its start time again; how many were signalled. */
export function signalMarked(marks: Marks, signal: NodeJS.Signals, host: Host, options: ScanOptions = {}): number {
  let sent = 0;
  for (const { pid, start } of findMarked(marks, host, options)) {
    const now = readStat(pid, host.procRoot);
    if (isEnded(now) || now?.start !== start) continue;
    if (signalProcess(host, pid, signal)) sent += 1;
  }
  return sent;
}

/** A whole `KEY=value\0` entry: at the start of the block or right after a NUL, never inside another value. */
function hasEntry(environ: Buffer, entry: Buffer): boolean {
  let at = environ.indexOf(entry);
  while (at !== -1) {
    if (at === 0 || environ[at - 1] === 0) return true;
    at = environ.indexOf(entry, at + 1);
  }
  return false;
}
