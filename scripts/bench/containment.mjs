// Figure 7: how long a task's stray processes outlive it. Each of 20 tasks (one at a time) starts 5 detached
// children that leave its process group, then exits 0. The time runs from the runner's exit (its own time stamp)
// until the last of its children is gone (a zombie counts as gone), polled in /proc every millisecond. First through
// `serve --stdio` with the guard this machine gets, then in this process through the built dispatcher with the marker
// guard forced, the guard of a Linux machine where cgroups can't be written.
import { readFileSync } from "node:fs";
import { Bridge, log, median, now, runnerOf, sendParams, sleep, WORKSPACE, withTimeout } from "./lib.mjs";

/** True while the process runs: not gone, not a zombie. */
function running(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Runs `tasks` tasks one at a time; `runTask` resolves with the runner's output and when the task ended. */
async function measure(tasks, runTask) {
  const goneAfterExit = [];
  const endAfterExit = [];
  const goneAfterEnd = [];
  let left = 0;
  for (let i = 0; i < tasks; i++) {
    const { text, endedAt } = await runTask();
    const pids = [...text.matchAll(/^child (\d+)$/gm)].map((m) => Number(m[1]));
    const exitAt = Number(/^exit ([\d.]+)$/m.exec(text)?.[1]);
    if (pids.length !== 5 || !exitAt) throw new Error(`unexpected runner output: ${JSON.stringify(text)}`);
    const until = now() + 10000;
    while (pids.some(running) && now() < until) await sleep(1);
    const goneAt = now();
    for (const pid of pids.filter(running)) {
      left += 1;
      process.kill(pid, "SIGKILL");
    }
    goneAfterExit.push(goneAt - exitAt);
    endAfterExit.push(endedAt - exitAt);
    goneAfterEnd.push(goneAt - endedAt);
  }
  const value = median(goneAfterExit);
  return {
    value,
    unit: "ms",
    baseline: null,
    ratio: null,
    goal: "median < 100 ms (no child here forces the grace period)",
    meets: value < 100 && left === 0,
    tasks,
    children_per_task: 5,
    max_ms: Math.max(...goneAfterExit),
    task_end_after_exit_median_ms: median(endAfterExit),
    gone_after_task_end_median_ms: median(goneAfterEnd),
    left_running: left,
  };
}

async function throughBridge(tasks) {
  const bridge = new Bridge();
  try {
    await bridge.ready();
    const figure = await measure(tasks, async () => {
      let id;
      const early = [];
      let text = "";
      const ended = new Promise((resolve, reject) => {
        const take = (event) => {
          if (event.kind === "artifact-update") text += event.artifact.parts.map((p) => p.text).join("");
          if (event.kind === "status-update" && event.final) {
            const endedAt = now();
            off();
            if (event.status.state === "completed") resolve(endedAt);
            else reject(new Error(`task ended ${event.status.state}`));
          }
        };
        const off = bridge.onEvent((event) => {
          if (id === undefined) early.push(event);
          else if (event.taskId === id) take(event);
        });
        bridge.guard(bridge.request("message/stream", sendParams("strays", { timeoutSeconds: 30 }))).then((task) => {
          id = task.id;
          for (const event of early.splice(0)) if (event.taskId === id) take(event);
        }, reject);
      });
      const endedAt = await withTimeout(bridge.guard(ended), 30000, "the task's end");
      return { text, endedAt };
    });
    return { name: "containment_end_ms", ...figure, guard: bridge.guardKind };
  } finally {
    await bridge.close();
  }
}

async function markerInProcess(tasks) {
  const dist = (path) => new URL(`../../dist/core/${path}`, import.meta.url).href;
  const { Dispatcher } = await import(dist("task/dispatcher.js"));
  const { MemoryStore } = await import(new URL("../../dist/store/memory.js", import.meta.url).href);
  // Files are read with their format (the 0.3 message of CONTRACT 2): src/a2a/input-file.ts.
  const { analyzeInput } = await import(new URL("../../dist/a2a/input-file.js", import.meta.url).href);
  const { markerGuard } = await import(dist("containment/marker-guard.js"));
  const { REAL_HOST } = await import(dist("containment/host.js"));
  const { Watchdog } = await import(dist("containment/watchdog.js"));
  const dispatcher = new Dispatcher({
    store: new MemoryStore(),
    workspace: WORKSPACE,
    containment: { guard: markerGuard(REAL_HOST), host: REAL_HOST, watchdog: new Watchdog() },
  });
  try {
    const figure = await measure(tasks, async () => {
      const task = dispatcher.submit({
        analysis: analyzeInput(sendParams("strays", { timeoutSeconds: 30 })),
        hitlActivated: false,
      });
      await dispatcher.settled(task.id);
      const endedAt = now();
      const view = dispatcher.get(task.id);
      if (view.state !== "completed") throw new Error(`task ended ${view.state}`);
      return { text: view.output.stdout.chunks.map((c) => c.text).join(""), endedAt };
    });
    return { name: "containment_end_marker_ms", ...figure, guard: "marker", through: "the dispatcher in-process" };
  } finally {
    await dispatcher.shutdown();
  }
}

/**
 * What each guard costs a task, in this process through the built spawner (the `noop` runner, one at a time): the
 * time before the runner is spawned, the time the event loop is held after the spawn, and the time spent ending it
 * (signals, looks, release). Last of all: the machine's guard may move this very process into a cgroup of its own.
 */
async function guardCosts(runs) {
  const dist = (path) => new URL(`../../dist/core/${path}`, import.meta.url).href;
  const { spawnCommand } = await import(dist("task/process.js"));
  const { sharedContainment } = await import(dist("containment/containment.js"));
  const { markerGuard } = await import(dist("containment/marker-guard.js"));
  const { groupGuard } = await import(dist("containment/group-guard.js"));
  const { REAL_HOST } = await import(dist("containment/host.js"));
  const shared = sharedContainment();
  const { cwd, args } = runnerOf("noop");
  const costs = {};
  for (const guard of [groupGuard(REAL_HOST), markerGuard(REAL_HOST), shared.guard]) {
    let spawnAt = 0;
    let spawned = 0;
    let ending = 0;
    const timed = (confinement, name) => {
      const inner = confinement[name].bind(confinement);
      confinement[name] = (...rest) => {
        const t = now();
        try {
          return inner(...rest);
        } finally {
          ending += now() - t;
        }
      };
    };
    const measured = {
      kind: guard.kind,
      exempt: guard.exempt?.bind(guard),
      confine(marks) {
        const confinement = guard.confine(marks);
        for (const name of ["signal", "alive", "release"]) timed(confinement, name);
        const enter = confinement.spawnInside.bind(confinement);
        confinement.spawnInside = (spawn) =>
          enter(() => {
            spawnAt = now();
            const child = spawn();
            spawned = now();
            return child;
          });
        return confinement;
      },
    };
    const before = [];
    const after = [];
    const ends = [];
    for (let i = 0; i < runs; i++) {
      const env = { ...process.env, AIWG_A2A_TASK_ID: `cost-${guard.kind}-${i}`, AIWG_A2A_INSTANCE_ID: "bench" };
      const spec = { executable: process.execPath, args, cwd, env, stdin: false, timeoutMs: 30000, killGraceMs: 2000 };
      const t0 = now();
      ending = 0;
      const command = spawnCommand(spec, { onChunk() {}, onStreamEnd() {} }, { ...shared, guard: measured });
      const t1 = now();
      await command.done;
      before.push(spawnAt - t0);
      after.push(t1 - spawned);
      ends.push(ending);
      await sleep(50); // apart, as single tasks come: each cgroup move then waits for a grace period of its own
    }
    costs[guard.kind] = {
      before_spawn_ms: median(before),
      held_after_spawn_ms: median(after),
      ending_ms: median(ends),
    };
  }
  const own = costs[shared.guard.kind];
  log(`containment: per task, ${JSON.stringify(costs)}`);
  return {
    name: "containment_task_cost_ms",
    value: own.before_spawn_ms + own.held_after_spawn_ms + own.ending_ms,
    unit: "ms",
    baseline: costs.group.before_spawn_ms + costs.group.held_after_spawn_ms + costs.group.ending_ms,
    ratio: null,
    goal: null,
    meets: null,
    guard: shared.guard.kind,
    runs,
    ...Object.fromEntries(
      Object.entries(costs).flatMap(([kind, c]) => Object.entries(c).map(([key, value]) => [`${kind}_${key}`, value])),
    ),
  };
}

export async function containmentEnd({ quick }) {
  const tasks = quick ? 8 : 20;
  const figures = [await throughBridge(tasks)];
  if (process.platform === "linux") figures.push(await markerInProcess(tasks));
  for (const f of figures)
    log(`containment: ${f.guard} guard; last child gone ${f.value.toFixed(1)} ms after the runner's exit (median)`);
  figures.push(await guardCosts(quick ? 10 : 30));
  return figures;
}
