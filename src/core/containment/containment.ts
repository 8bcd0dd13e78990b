// The containment of one tool process: the guard this machine gets and the watchdog, chosen once and shared by every
// dispatcher (so `run`, `serve --stdio` and `serve --http` contain alike; CONTRACT 3.2).
import { chooseGuard } from "./choose.js";
import type { Guard } from "./guard.js";
import { type Host, REAL_HOST } from "./host.js";
import { Watchdog } from "./watchdog.js";

export interface Containment {
  guard: Guard;
  host: Host;
  /** Kills the tasks' processes should the tool die without doing it; none in tests that do without. */
  watchdog: Watchdog | undefined;
}

let shared: Containment | undefined;

export function sharedContainment(): Containment {
  if (!shared) {
    const guard = chooseGuard(REAL_HOST);
    shared = { guard, host: REAL_HOST, watchdog: new Watchdog((pid) => guard.exempt?.(pid)) };
  }
  return shared;
}
