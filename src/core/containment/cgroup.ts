// The cgroup guard (CONTRACT 3.2): on Linux with a writable cgroup v2 hierarchy, each task gets a cgroup of its own
// below the tool's, and ending the task kills the cgroup. Paths come from /proc/self/mountinfo and /proc/self/cgroup
// (a hybrid system mounts v2 at /sys/fs/cgroup/unified), read under the Host's /proc root so tests can fake both.
import { randomUUID } from "node:crypto";
import { type Dirent, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { type Host, signalProcess } from "./host.js";

/** Our cgroups are named so; nothing else is ever killed or removed from a path read back from a record. */
export const TASK_CGROUP_PREFIX = "adapter-command-";
const SAFE_NAME = /^[A-Za-z0-9_-]{1,128}$/;
/** A runner may make cgroups inside its own: at most this many are looked at, this deep (the kernel allows more). */
const MAX_INNER_CGROUPS = 1000;
const MAX_INNER_DEPTH = 32;

export interface CgroupMount {
  /** The hierarchy's directory that is mounted (mountinfo field 4). */
  root: string;
  mountPoint: string;
}

/** The cgroup2 mounts listed in a mountinfo text. */
export function cgroup2Mounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (!left || !right || right.split(" ")[0] !== "cgroup2") continue;
    const fields = left.split(" ");
    const [root, mountPoint] = [fields[3], fields[4]];
    if (root && mountPoint) mounts.push({ root: unescapeMountPath(root), mountPoint: unescapeMountPath(mountPoint) });
  }
  return mounts;
}

/** mountinfo writes space, tab, newline and backslash as octal escapes (\040 ...). */
function unescapeMountPath(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

/** The directory of the cgroup a process is in, from its /proc/PID/cgroup text (the `0::` line of cgroup v2). */
export function cgroupDirOf(mounts: CgroupMount[], procCgroup: string): string | undefined {
  const line = procCgroup.split("\n").find((l) => l.startsWith("0::"));
  const path = line?.slice(3);
  if (!path?.startsWith("/") || path.endsWith(" (deleted)")) return undefined;
  for (const { root, mountPoint } of mounts) {
    const inside =
      root === "/" ? path : path === root ? "/" : path.startsWith(`${root}/`) ? path.slice(root.length) : "";
    if (inside) return resolve(mountPoint, `.${inside}`);
  }
  return undefined;
}

/** The tool's own cgroup directory, if the system has cgroup v2 and /proc says where it is. */
export function ownCgroupDir(host: Host): string | undefined {
  try {
    const mounts = cgroup2Mounts(readFileSync(`${host.procRoot}/self/mountinfo`, "utf8"));
    return cgroupDirOf(mounts, readFileSync(`${host.procRoot}/self/cgroup`, "utf8"));
  } catch {
    return undefined;
  }
}

/** A new name for a cgroup of ours: every task cgroup (and the tool's standby, which becomes one) is named so. */
export function freshCgroupName(): string {
  return `${TASK_CGROUP_PREFIX}${randomUUID()}`;
}

/** True when `path` can be a task cgroup of ours: a normalized path, our name, directly inside a cgroup2 mount's tree. */
export function isTaskCgroupPath(path: string, host: Host): boolean {
  if (resolve(path) !== path || !basename(path).startsWith(TASK_CGROUP_PREFIX) || !SAFE_NAME.test(basename(path)))
    return false;
  let mounts: CgroupMount[];
  try {
    mounts = cgroup2Mounts(readFileSync(`${host.procRoot}/self/mountinfo`, "utf8"));
  } catch {
    return false;
  }
  return mounts.some(({ mountPoint }) => {
    const rel = relative(mountPoint, dirname(path));
    return rel === "" || (!rel.startsWith("..") && !rel.startsWith("/"));
  });
}

export class Cgroup {
  constructor(
    readonly path: string,
    private readonly host: Host,
  ) {}

  create(): void {
    mkdirSync(this.path);
  }

  /** Moves a process (all its threads) into this cgroup. */
  enter(pid: number): void {
    writeFileSync(join(this.path, "cgroup.procs"), String(pid));
  }

  /** The processes directly in this cgroup. */
  procs(): number[] {
    return procsOf(this.path);
  }

  /**
   * The cgroups a runner made inside this one, deepest first (so they can be removed in that order); bounded by
   * MAX_INNER_CGROUPS and MAX_INNER_DEPTH. Only directories: cgroupfs has no links.
   */
  inner(): string[] {
    const found: string[] = [];
    const walk = (dir: string, depth: number) => {
      if (depth > MAX_INNER_DEPTH) return;
      let entries: Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries) {
        if (!entry.isDirectory() || found.length >= MAX_INNER_CGROUPS) continue;
        const path = join(dir, entry.name);
        walk(path, depth + 1);
        found.push(path);
      }
    };
    walk(this.path, 1);
    return found;
  }

  /** The processes in this cgroup and in the cgroups inside it. */
  allProcs(): number[] {
    return [...this.procs(), ...this.inner().flatMap(procsOf)];
  }

  /** True while a live process other than ourselves is in it (zombies do not count, as the kernel's `populated` says). */
  populated(): boolean {
    try {
      const events = readFileSync(join(this.path, "cgroup.events"), "utf8");
      if (/^populated 0$/m.test(events)) return false;
    } catch {
      // no cgroup.events: the process list says it
    }
    return this.allProcs().some((pid) => pid !== this.host.self);
  }

  /**
   * SIGKILL through cgroup.kill, which also takes processes forking at that very moment and every cgroup inside;
   * other signals, or a kernel without cgroup.kill (before 5.14), or ourselves inside: to each process listed, in
   * this cgroup and the ones inside it. How many were signalled (the cgroup.kill write counts as one).
   */
  signal(signal: NodeJS.Signals): number {
    const procs = this.allProcs();
    const killFile = join(this.path, "cgroup.kill");
    if (signal === "SIGKILL" && !procs.includes(this.host.self) && existsSync(killFile)) {
      try {
        writeFileSync(killFile, "1");
        return 1;
      } catch {
        // fall through to one process at a time
      }
    }
    let sent = 0;
    for (const pid of procs) if (signalProcess(this.host, pid, signal)) sent += 1;
    return sent;
  }

  /**
   * Removes the directory and the cgroups a runner made inside it, deepest first, once they are empty (rmdir refuses
   * a cgroup with a process in it); true when it is gone.
   */
  remove(): boolean {
    for (const inner of this.inner()) removeDir(inner);
    return removeDir(this.path);
  }
}

function procsOf(path: string): number[] {
  try {
    return readFileSync(join(path, "cgroup.procs"), "utf8").split("\n").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function removeDir(path: string): boolean {
  try {
    rmdirSync(path);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/**
 * Runs `spawn` (synchronous) with the calling process standing in `task`, so the child is born inside it and
 * cannot fork before being placed; then moves the caller back to `home`. Writing the child's pid after the spawn
 * would leave it a moment to fork a process that stays outside.
 */
export function spawnIn<T>(task: Cgroup, home: Cgroup, self: number, spawn: () => T): T {
  task.enter(self);
  try {
    return spawn();
  } finally {
    home.enter(self);
  }
}
