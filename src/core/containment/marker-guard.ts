// The marker guard: a task's processes are the ones whose environment carries its AIWG_A2A_TASK_ID and
// AIWG_A2A_INSTANCE_ID (marker.ts); a spawn without both marks has its process group only.
import { Confinement, type Guard } from "./guard.js";
import type { Host } from "./host.js";

export function markerGuard(host: Host): Guard {
  return {
    kind: "marker",
    confine(marks) {
      return new Confinement(marks ? { kind: "marker", ...marks } : { kind: "group" }, host);
    },
  };
}
