// Which guard this machine gets, decided once at start (CONTRACT 3.2; docs/security.md "Containment"): a cgroup per
// task where cgroup v2 is writable, the environment markers elsewhere on Linux, the process group where there is no
// /proc.
import { Cgroup, ownCgroupDir, probeCgroup } from "./cgroup.js";
import { cgroupGuard } from "./cgroup-guard.js";
import { groupGuard } from "./group-guard.js";
import type { Guard } from "./guard.js";
import { type Host, hasProc } from "./host.js";
import { markerGuard } from "./marker-guard.js";

export function chooseGuard(host: Host, platform: NodeJS.Platform = process.platform): Guard {
  if (platform !== "linux" || !hasProc(host.procRoot)) return groupGuard(host);
  const own = ownCgroupDir(host);
  if (own) {
    const home = new Cgroup(own, host);
    if (probeCgroup(home, host)) return cgroupGuard(home, host);
  }
  return markerGuard(host);
}
