// The group guard (no cgroup v2, no /proc: macOS): the runner's process group is all there is (process.ts signals it).
import { Confinement, type Guard } from "./guard.js";
import type { Host } from "./host.js";

export function groupGuard(host: Host): Guard {
  return {
    kind: "group",
    confine() {
      return new Confinement({ kind: "group" }, host);
    },
  };
}
