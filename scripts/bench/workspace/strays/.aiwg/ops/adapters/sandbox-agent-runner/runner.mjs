// Bench runner: starts 5 detached children (`sleep 600`, each in a session of its own, stdio ignored), prints
// `child <pid>` for each, then `exit <ms>` (performance.timeOrigin + performance.now()) and exits 0 at once.
import { spawn } from "node:child_process";

for (let i = 0; i < 5; i++) {
  const child = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
  child.unref();
  process.stdout.write(`child ${child.pid}\n`);
}
process.stdout.write(`exit ${(performance.timeOrigin + performance.now()).toFixed(3)}\n`);
process.exit(0);
