// The cgroup guard: each task in a cgroup of its own, below the tool's (docs/security.md "Containment").
//
// A runner must be inside its cgroup before it can fork, so it is born there: the tool waits for the next task
// standing in a fresh, empty cgroup of its own (its standby), spawns the runner from it, and the standby becomes the
// task's cgroup; the tool then steps into a new standby. Each move of a process between cgroups waits for an RCU grace
// period in the kernel (about 12 ms on the 2-core VM of docs/benchmarks.md); taken after the spawn it delays neither
// the runner nor the task's end. When the standby can't be used (something else of this process was started in it),
// the tool moves into a fresh cgroup for the spawn and back, and the runner waits for that grace period.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { Cgroup, freshCgroupName, spawnIn, TASK_CGROUP_PREFIX } from "./cgroup.js";
import { Confinement, type Guard } from "./guard.js";
import type { Host } from "./host.js";

export class CgroupGuard implements Guard {
  readonly kind = "cgroup";
  readonly cgroupRoot: string;
  /** Where this process stands between spawns, when it stands in a cgroup of its own. */
  private standby: Cgroup | undefined;

  private constructor(
    private readonly home: Cgroup,
    private readonly host: Host,
  ) {
    this.cgroupRoot = home.path;
  }

  /** The guard, standing in its first standby; undefined when the hierarchy below `home` can't be used. */
  static open(home: Cgroup, host: Host): CgroupGuard | undefined {
    sweepStale(home.path, host);
    const guard = new CgroupGuard(home, host);
    if (!guard.stepAside()) return undefined;
    process.once("exit", () => guard.close());
    return guard;
  }

  confine(): Confinement {
    const standby = this.standby;
    if (standby && this.aloneIn(standby)) {
      return new Confinement({ kind: "cgroup", path: standby.path }, this.host, (spawn) => {
        try {
          return spawn();
        } finally {
          this.standby = undefined;
          if (!this.stepAside()) this.goHome();
        }
      });
    }
    const cgroup = this.fresh();
    cgroup.create();
    return new Confinement({ kind: "cgroup", path: cgroup.path }, this.host, (spawn) =>
      spawnIn(cgroup, this.standby ?? this.home, this.host.self, spawn),
    );
  }

  /** A helper of the tool (the watchdog) is kept out of the standby, which will become a task's cgroup. */
  exempt(pid: number): void {
    try {
      this.home.enter(pid);
    } catch {
      // It stays in the standby, which is then no longer used for a task (see `aloneIn`).
    }
  }

  /** Back home at exit, and the standby removed. */
  close(): void {
    const standby = this.standby;
    this.standby = undefined;
    this.goHome();
    standby?.remove();
  }

  /** Moves this process into a fresh standby; false if that can't be done. */
  private stepAside(): boolean {
    const next = this.fresh();
    try {
      next.create();
      next.enter(this.host.self);
    } catch {
      next.remove();
      return false;
    }
    this.standby = next;
    return true;
  }

  private goHome(): void {
    try {
      this.home.enter(this.host.self);
    } catch {
      // Still in a cgroup of ours: it is never killed while this process is in it (Cgroup.signal).
    }
  }

  private aloneIn(cgroup: Cgroup): boolean {
    const procs = cgroup.procs();
    return procs.length === 1 && procs[0] === this.host.self;
  }

  private fresh(): Cgroup {
    return new Cgroup(join(this.home.path, freshCgroupName()), this.host);
  }
}

/** An empty cgroup of ours this old is a leftover: a tool that was SIGKILLed leaves its (empty) standby behind. */
const STALE_MS = 60_000;

/**
 * Removes leftover cgroups of ours below `home`, with the cgroups made inside them: only empty ones (rmdir refuses any
 * other) created over a minute ago,
 * so never the standby or a fresh task cgroup of another tool running beside this one.
 */
function sweepStale(home: string, host: Host): void {
  let names: string[];
  try {
    names = readdirSync(home).filter((name) => name.startsWith(TASK_CGROUP_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    try {
      const path = join(home, name);
      if (Date.now() - statSync(path).ctimeMs > STALE_MS) new Cgroup(path, host).remove();
    } catch {
      // not empty, or gone meanwhile
    }
  }
}
