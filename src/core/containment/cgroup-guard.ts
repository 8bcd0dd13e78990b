// The cgroup guard: each task in a cgroup of its own, created below the tool's before the runner is spawned into it.
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { Cgroup, spawnIn, taskCgroupName } from "./cgroup.js";
import { Confinement, type Guard } from "./guard.js";
import type { Host } from "./host.js";

export function cgroupGuard(home: Cgroup, host: Host): Guard {
  return {
    kind: "cgroup",
    confine(marks) {
      const cgroup = new Cgroup(join(home.path, taskCgroupName(marks?.taskId ?? randomUUID())), host);
      cgroup.create();
      return new Confinement({ kind: "cgroup", path: cgroup.path }, host, (spawn) =>
        spawnIn(cgroup, home, host.self, spawn),
      );
    },
  };
}
