// Figure 6: short tasks through `serve --stdio --max-concurrent 8` (non-blocking sends, then completion from
// `tasks/resubscribe` and its events), against spawning the same runner directly, 8 at a time.
import { Bridge, log, now, runNode, runnerOf, sendParams, withTimeout } from "./lib.mjs";

const PARALLEL = 8;

async function viaBridge(bridge, count) {
  const finals = new Map();
  const waiting = new Map();
  const off = bridge.onEvent((event) => {
    if (event.kind !== "status-update" || !event.final) return;
    finals.set(event.taskId, event.status.state);
    waiting.get(event.taskId)?.(event.status.state);
  });
  const ended = new Set(["completed", "failed", "canceled", "rejected"]);
  const one = async () => {
    const task = await bridge.request("message/send", sendParams("short", { blocking: false }));
    const now = await bridge.request("tasks/resubscribe", { id: task.id });
    if (ended.has(now.status.state)) return now.status.state;
    if (finals.has(task.id)) return finals.get(task.id);
    return new Promise((resolve) => waiting.set(task.id, resolve));
  };
  const t0 = now();
  const states = await Promise.all(Array.from({ length: count }, one));
  const ms = now() - t0;
  off();
  const bad = states.filter((state) => state !== "completed");
  if (bad.length > 0) throw new Error(`${bad.length} of ${count} tasks did not complete: ${bad.slice(0, 3)}`);
  return ms;
}

async function direct(count) {
  const { cwd, args } = runnerOf("short");
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next += 1;
      const exit = await runNode(args, { cwd, stdout: "pipe" });
      if (exit.code !== 0) throw new Error(`short runner exited ${exit.code}: ${exit.stderr}`);
    }
  };
  const t0 = now();
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return now() - t0;
}

export async function concurrency({ quick }) {
  const count = quick ? 50 : 200;
  const bridge = new Bridge(["--max-concurrent", String(PARALLEL)]);
  let bridgeMs;
  try {
    await bridge.ready();
    await withTimeout(bridge.guard(viaBridge(bridge, PARALLEL)), 60000, "warm-up tasks");
    bridgeMs = await withTimeout(bridge.guard(viaBridge(bridge, count)), 180000, `${count} tasks through the bridge`);
  } finally {
    await bridge.close();
  }
  const directMs = await withTimeout(direct(count), 180000, `${count} direct spawns`);
  const value = count / (bridgeMs / 1000);
  const baseline = count / (directMs / 1000);
  log(`concurrency: ${value.toFixed(1)} tasks/s through the bridge, ${baseline.toFixed(1)} tasks/s direct`);
  return [
    {
      name: "concurrency_tasks_per_s",
      value,
      unit: "tasks/s",
      baseline,
      ratio: value / baseline,
      goal: null,
      meets: null,
      tasks: count,
      max_concurrent: PARALLEL,
      guard: bridge.guardKind,
    },
  ];
}
