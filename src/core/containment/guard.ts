// What every containment guard shares (CONTRACT 3.2, docs/security.md "Containment"): the identity a task's
// processes are found by, kept in the task record, and the operations on it, for the running tool, the watchdog and
// the cleanup after a restart alike.
import { Cgroup, isTaskCgroupPath } from "./cgroup.js";
import type { Host } from "./host.js";
import { findMarked, type Marks, signalMarked } from "./marker.js";

/** How a task's processes are found beyond its process group. */
export type GuardRecord =
  | { kind: "cgroup"; path: string }
  | { kind: "marker"; taskId: string; instanceId: string }
  | { kind: "group" };

export type GuardKind = GuardRecord["kind"];

export interface Guard {
  readonly kind: GuardKind;
  /** The cgroup the tool's task cgroups are made in (the cgroup guard): the only place a restart kills a cgroup. */
  readonly cgroupRoot?: string;
  /** Prepares the confinement of one task, before anything is spawned (the cgroup guard creates its cgroup here). */
  confine(marks: Marks | undefined): Confinement;
  /** Keeps a helper process of the tool (the watchdog) out of every task's confinement. */
  exempt?(pid: number): void;
}

/** Options of the operations below: a record read back from disk is checked before anything is written or killed. */
interface Reach {
  /** Start time (clock ticks) of the task's runner: an older process cannot be one of its descendants. */
  notBefore?: number | undefined;
  /** The record comes from this very process (no need to check a cgroup path against the mounts). */
  trusted?: boolean;
}

function cgroupOf(record: GuardRecord, host: Host, reach: Reach): Cgroup | undefined {
  if (record.kind !== "cgroup") return undefined;
  return reach.trusted || isTaskCgroupPath(record.path, host) ? new Cgroup(record.path, host) : undefined;
}

/** Signals every process the guard finds for the task (not its group: see group.ts); how many. */
export function signalGuarded(record: GuardRecord, signal: NodeJS.Signals, host: Host, reach: Reach = {}): number {
  if (record.kind === "marker") return signalMarked(record, signal, host, reach);
  return cgroupOf(record, host, reach)?.signal(signal) ?? 0;
}

/** True while the guard still finds a live process of the task (the group guard finds none). */
export function guardedAlive(record: GuardRecord, host: Host, reach: Reach = {}): boolean {
  if (record.kind === "marker") return findMarked(record, host, reach).length > 0;
  return cgroupOf(record, host, reach)?.populated() ?? false;
}

/** Frees what the guard holds for the task (the cgroup's directory); false while it can't yet. */
export function releaseGuarded(record: GuardRecord, host: Host, reach: Reach = {}): boolean {
  return cgroupOf(record, host, reach)?.remove() ?? true;
}

/** One task's processes as its guard sees them, in the running tool. */
export class Confinement {
  private notBefore: number | undefined;

  constructor(
    readonly record: GuardRecord,
    private readonly host: Host,
    private readonly enter: <T>(spawn: () => T) => T = (spawn) => spawn(),
  ) {}

  /** Runs the (synchronous) spawn so that the child starts inside the confinement. */
  spawnInside<T>(spawn: () => T): T {
    return this.enter(spawn);
  }

  /** The runner's start time, once spawned: the marker scan skips anything older. */
  started(start: string | undefined): void {
    this.notBefore = start === undefined ? undefined : Number(start);
  }

  signal(signal: NodeJS.Signals): number {
    return signalGuarded(this.record, signal, this.host, { notBefore: this.notBefore, trusted: true });
  }

  alive(): boolean {
    return guardedAlive(this.record, this.host, { notBefore: this.notBefore, trusted: true });
  }

  /** Kills what is still in the task's cgroup (and the cgroups a runner made inside it), then removes them all. */
  release(): boolean {
    if (this.record.kind === "cgroup" && this.alive()) this.signal("SIGKILL");
    return releaseGuarded(this.record, this.host, { trusted: true });
  }
}
