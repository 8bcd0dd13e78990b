// Which guard this machine gets, decided once at start (CONTRACT 3.2; docs/security.md "Containment"): a cgroup per
// task where cgroup v2 is writable, the environment markers elsewhere on Linux, the process group where there is no
// /proc.
import { Cgroup, ownCgroupDir } from "./cgroup.js";
import { CgroupGuard } from "./cgroup-guard.js";
import { groupGuard } from "./group-guard.js";
import type { Guard } from "./guard.js";
import { type Host, hasProc } from "./host.js";
import { markerGuard } from "./marker-guard.js";

/** Call it once per process (src/core/containment/containment.ts does): the cgroup guard moves the process itself. */
export function chooseGuard(host: Host, platform: NodeJS.Platform = process.platform): Guard {
  if (platform !== "linux" || !hasProc(host.procRoot)) return groupGuard(host);
  const own = ownCgroupDir(host);
  const cgroup = own === undefined ? undefined : CgroupGuard.open(new Cgroup(own, host), host);
  return cgroup ?? markerGuard(host);
}
