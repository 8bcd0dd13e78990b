// The watchdog process (docs/security.md "The watchdog"): started by the tool with process.execPath, no shell. It
// learns each task's trace and deadline over its stdin. When that stdin ends, the tool is gone (exited, SIGKILLed,
// OOM-killed): every task still watched gets SIGTERM, then SIGKILL once its grace is over, but never later than its
// deadline plus the grace (CONTRACT 3.2). While the tool lives it only steps in for a task still watched well past its
// deadline plus the grace (a tool that hangs).
import { hasProc, REAL_HOST } from "./host.js";
import type { TaskTrace } from "./trace.js";
import { releaseTrace, signalTrace, traceAlive } from "./trace.js";
import type { WatchdogMessage } from "./watchdog.js";
import { WatchdogMessages } from "./watchdog-messages.js";

/** How long after deadline + grace a hung tool is given before the watchdog kills for it. */
const BACKSTOP_MS = 1000;
/** How long the watchdog keeps killing (new forks) and waiting for the processes to go, once it kills. */
const SETTLE_MS = 3000;

interface Watched {
  trace: TaskTrace;
  deadline: number;
  grace: number;
  backstop: NodeJS.Timeout;
}

const host = REAL_HOST;
/** Without /proc nothing tells whether a task's processes still run: the grace is waited out, and groups signalled unchecked. */
const visible = hasProc(host.procRoot);
const signal = (trace: TaskTrace, name: NodeJS.Signals) => signalTrace(trace, name, host, true);
const watched = new Map<string, Watched>();

function take(message: WatchdogMessage): void {
  if ("watch" in message) {
    const { watch: id, trace, deadline, grace } = message;
    clearTimeout(watched.get(id)?.backstop);
    const backstop = setTimeout(() => void settle(trace), Math.max(0, deadline + grace + BACKSTOP_MS - Date.now()));
    watched.set(id, { trace, deadline, grace, backstop });
  } else if ("started" in message) {
    const task = watched.get(message.started);
    if (task) Object.assign(task.trace, { pid: message.pid, pidStart: message.pidStart });
  } else if ("done" in message) {
    clearTimeout(watched.get(message.done)?.backstop);
    watched.delete(message.done);
  }
}

/** SIGKILL until nothing of the task is left (bounded), then frees its cgroup. */
async function settle(trace: TaskTrace): Promise<void> {
  const until = Date.now() + SETTLE_MS;
  signal(trace, "SIGKILL");
  while (traceAlive(trace, host) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    signal(trace, "SIGKILL");
  }
  while (!releaseTrace(trace, host) && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** The tool is gone: SIGTERM now, SIGKILL after the grace but by deadline + grace at the latest. */
async function toolGone(): Promise<void> {
  const ends = [...watched.values()].map(async ({ trace, deadline, grace, backstop }) => {
    clearTimeout(backstop);
    signal(trace, "SIGTERM");
    const killAt = Math.min(Date.now() + grace, deadline + grace);
    while ((!visible || traceAlive(trace, host)) && Date.now() < killAt)
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(0, killAt - Date.now()))));
    await settle(trace);
  });
  await Promise.all(ends);
  process.exit(0);
}

const messages = new WatchdogMessages();
let gone = false;
const end = () => {
  if (gone) return;
  gone = true;
  void toolGone();
};
process.stdin.on("data", (chunk: Buffer) => {
  for (const message of messages.push(chunk)) take(message);
});
process.stdin.on("end", end);
process.stdin.on("error", end);
