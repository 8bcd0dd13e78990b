// The kept-tasks and scale groups: how cost grows with the tasks a state dir keeps (kept-tasks), with tasks waiting
// at once, and with the subscribers of one task (scale) (docs/benchmarks.md, "How cost grows with kept tasks").
// 1. A state dir of 1 000, 10 000 and 100 000 ended tasks: a few real runs through `serve --http`, the rest copies of
//    one of them put through the store itself (dist/store/open.js), which is much faster than running them. At each
//    size, a fresh `serve --http` on it: time from spawn to serving, ListTasks first page and GetTask p95 (REST, one
//    keep-alive connection, one request at a time), its RSS right after the start and after those requests, and the
//    size of state.db. At 100 000 tasks, three fresh starts, judged two of three.
// 2. 200 tasks waiting at a `[y/N]` prompt at once (hitl-prompt/v1, text-line) in one `serve --stdio`: its RSS per
//    waiting task, and prompt detection p95 while the other tasks wait.
// 3. 1 000 SSE subscribers of one task over HTTP: the server's RSS, and every byte of the task's output delivered to
//    each of them.
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HttpBridge, readSse, send10 } from "./http-lib.mjs";
import { judgeAll } from "./judge.mjs";
import { answerParams, Bridge, HITL_URI, log, MiB, memoryOf, now, quantile, sendParams, withTimeout } from "./lib.mjs";
import { stampReader } from "./prompt.mjs";

/** Limits high enough that the server keeps every task the bench puts in its state dir. */
const KEEP_ALL = ["--keep-tasks", "1000000", "--keep-bytes", String(2 ** 40)];
const REAL_RUNS = 3;
const REQUESTS = 200;
const WARMUP = 20;
const PROMPT_DETECT_GOAL_MS = 160;
/** Fresh starts on the largest state dir, of which two must meet the goals. */
const BIG_STARTS = 3;

/** A real task's record, copied `count` times into the state dir under new ids, contexts and times. */
async function putCopies(dir, template, count, ids) {
  const { openStateStore } = await import("../../dist/store/open.js");
  const opened = await openStateStore(dir, {
    outputLimit: 8 * MiB,
    log: () => {},
    keptEnded: 1_000_000,
    keptEndedBytes: 2 ** 40,
  });
  if (!opened.ok) throw new Error(opened.message);
  const { store } = opened;
  try {
    const base = Date.parse("2026-01-01T00:00:00.000Z") + ids.length * 1000;
    for (let i = 0; i < count; i++) {
      const at = new Date(base + i * 1000).toISOString();
      const id = randomUUID();
      store.put({ ...template, id, contextId: `ctx-${(ids.length + i) % 1000}`, createdAt: at, updatedAt: at });
      ids.push(id);
    }
  } finally {
    store.close();
  }
}

/** The record of a real run: three short tasks through `serve --http`, the last one read back through the store. */
async function realRuns(dir, ids) {
  const server = new HttpBridge(["--state-dir", dir, ...KEEP_ALL]);
  try {
    await server.ready(30_000);
    for (let i = 0; i < REAL_RUNS; i++) {
      const { task } = await server.call("SendMessage", send10("short"));
      if (task.status.state !== "TASK_STATE_COMPLETED") throw new Error(`a real run ended ${task.status.state}`);
      ids.push(task.id);
    }
  } finally {
    await server.close();
  }
  const { openStateStore } = await import("../../dist/store/open.js");
  const opened = await openStateStore(dir, { outputLimit: 8 * MiB, log: () => {}, keptEnded: 1_000_000 });
  if (!opened.ok) throw new Error(opened.message);
  try {
    return opened.store.get(ids.at(-1));
  } finally {
    opened.store.close();
  }
}

/** Milliseconds of each of `count` requests made one after the other, after WARMUP unmeasured ones. */
async function timed(server, agent, pathOf, count) {
  const times = [];
  for (let i = 0; i < WARMUP + count; i++) {
    const t0 = now();
    const response = await server.open("GET", pathOf(i), undefined, agent);
    for await (const _ of response);
    if (response.statusCode !== 200) throw new Error(`GET ${pathOf(i)} answered ${response.statusCode}`);
    if (i >= WARMUP) times.push(now() - t0);
  }
  return times;
}

/** A fresh server on the state dir: its start, its answers and its memory. */
async function measureStateDir(dir, ids) {
  const t0 = now();
  const server = new HttpBridge(["--state-dir", dir, ...KEEP_ALL]);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    await server.ready(30_000);
    const startMs = now() - t0;
    // What the start itself holds, before any request has grown the heap (nothing loads every task at start).
    const started = memoryOf(server.pid);
    const list = await timed(server, agent, () => "/a2a/rest/tasks", REQUESTS);
    const get =
      ids.length > 0
        ? await timed(server, agent, (i) => `/a2a/rest/tasks/${ids[(i * 7919) % ids.length]}`, REQUESTS)
        : [];
    const memory = memoryOf(server.pid);
    return {
      startMs,
      listP95: quantile(list, 0.95),
      getP95: quantile(get, 0.95),
      rss: memory.rss / MiB,
      startRss: started.rss / MiB,
      db: statSync(join(dir, "state.db")).size / MiB,
    };
  } finally {
    agent.destroy();
    await server.close();
  }
}

const label = (size) => `${size / 1000}k`;

async function stateDirFigures(sizes) {
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-bench-scale-"));
  const figures = [];
  try {
    const empty = await measureStateDir(join(dir, "empty"), []);
    const stateDir = join(dir, "state");
    const ids = [];
    const template = await realRuns(stateDir, ids);
    let first;
    for (const size of sizes) {
      const t0 = now();
      await putCopies(stateDir, template, size - ids.length, ids);
      log(`scale: ${ids.length} tasks put in ${((now() - t0) / 1000).toFixed(1)} s`);
      const big = size >= 100_000;
      // The goals at 100 000 tasks are judged over three fresh starts on the same state dir, two of which must meet
      // (docs/benchmarks.md, "How figures are judged"); the other sizes are measured once.
      const starts = [];
      for (let start = 0; start < (big ? BIG_STARTS : 1); start++) {
        const m = await measureStateDir(stateDir, ids);
        log(
          `scale ${label(size)}: start ${m.startMs.toFixed(0)} ms, ListTasks p95 ${m.listP95.toFixed(2)} ms, GetTask p95 ${m.getP95.toFixed(2)} ms, RSS ${m.rss.toFixed(0)} MiB (at start ${m.startRss.toFixed(0)}), state.db ${m.db.toFixed(1)} MiB`,
        );
        first ??= m;
        starts.push(figuresAt(size, m, first, empty));
      }
      figures.push(...(starts.length === 1 ? starts[0] : judgeAll(starts)));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return figures;
}

/** The figures of one start on a state dir of `size` tasks. */
function figuresAt(size, m, first, empty) {
  const at = { tasks: size, requests: REQUESTS };
  const big = size >= 100_000;
  return [
    {
      name: `scale_${label(size)}_start_to_serving_ms`,
      value: m.startMs,
      unit: "ms",
      baseline: empty.startMs,
      ratio: m.startMs / empty.startMs,
      goal: big ? "< 1000 ms at 100 000 tasks (baseline: an empty state dir)" : null,
      meets: big ? m.startMs < 1000 : null,
      ...at,
    },
    {
      name: `scale_${label(size)}_list_first_page_p95_ms`,
      value: m.listP95,
      unit: "ms",
      baseline: first.listP95,
      ratio: m.listP95 / first.listP95,
      goal: "< 20 ms at every size (baseline: at 1 000 tasks)",
      meets: m.listP95 < 20,
      ...at,
    },
    {
      name: `scale_${label(size)}_get_task_p95_ms`,
      value: m.getP95,
      unit: "ms",
      baseline: first.getP95,
      ratio: m.getP95 / first.getP95,
      goal: "< 5 ms at every size (baseline: at 1 000 tasks)",
      meets: m.getP95 < 5,
      ...at,
    },
    {
      name: `scale_${label(size)}_rss_mib`,
      value: m.rss,
      unit: "MiB",
      baseline: empty.rss,
      ratio: m.rss / empty.rss,
      goal: big ? "< 150 MiB at 100 000 tasks (baseline: an empty state dir)" : null,
      meets: big ? m.rss < 150 : null,
      // Measured after the ListTasks and GetTask requests above; beside it, the RSS right after the start.
      at_start_rss_mib: m.startRss,
      baseline_at_start_rss_mib: empty.startRss,
      ...at,
    },
    {
      name: `scale_${label(size)}_state_db_mib`,
      value: m.db,
      unit: "MiB",
      baseline: null,
      ratio: null,
      goal: null,
      meets: null,
      bytes_per_task: (m.db * MiB) / size,
      ...at,
    },
  ];
}

/**
 * Events of a stdio bridge by task: the "t" stamps of each prompt written, when each was raised, its prompt id,
 * and whether the task has ended. `until` resolves once a condition over them holds (checked at each event).
 */
function promptWatch(bridge) {
  const tasks = new Map();
  const checks = new Set();
  const taskOf = (id) => {
    let task = tasks.get(id);
    if (!task) {
      const writes = [];
      task = { writes, raised: [], promptId: undefined, event: undefined, ended: undefined };
      task.feed = stampReader((kind, ms) => kind === "t" && writes.push(ms));
      tasks.set(id, task);
    }
    return task;
  };
  bridge.onEvent((event) => {
    const task = taskOf(event.taskId);
    if (event.kind === "artifact-update") for (const part of event.artifact.parts) task.feed(part.text ?? "");
    else if (event.kind === "status-update") {
      if (event.status.state === "input-required") {
        task.raised.push(now());
        task.promptId = event.status.message?.metadata?.[HITL_URI]?.prompt_id;
        task.event = event;
      } else if (event.final) task.ended = event.status.state;
    }
    for (const check of checks) check();
  });
  const until = (condition, ms, what) =>
    withTimeout(
      bridge.guard(
        new Promise((resolve) => {
          const check = () => {
            if (!condition()) return;
            checks.delete(check);
            resolve();
          };
          checks.add(check);
          check();
        }),
      ),
      ms,
      what,
    );
  return { taskOf, until };
}

async function waitingFigures({ quick }) {
  const count = quick ? 50 : 200;
  const wave = 10;
  const bridge = new Bridge(["--max-concurrent", String(count), "--settle-ms", "150"]);
  const ids = [];
  const detect = { filling: [], waiting: [] };
  let idle;
  let waiting;
  try {
    await bridge.ready();
    idle = memoryOf(bridge.pid).rss;
    const { taskOf, until } = promptWatch(bridge);
    const params = () => sendParams("ask", { textLine: true, text: "bench prompts=2" });
    // Started a wave at a time, each wave at its prompt before the next starts.
    for (let from = 0; from < count; from += wave) {
      const started = [];
      for (let i = from; i < Math.min(count, from + wave); i++)
        started.push(bridge.guard(bridge.request("message/stream", params())).then((task) => task.id));
      const wave_ = await Promise.all(started);
      ids.push(...wave_);
      await until(() => wave_.every((id) => taskOf(id).raised.length >= 1), 60_000, "a wave of prompts");
    }
    for (const id of ids) detect.filling.push(taskOf(id).raised[0] - taskOf(id).writes[0]);
    waiting = memoryOf(bridge.pid).rss;
    log(
      `scale: ${count} tasks waiting at a prompt: RSS ${(waiting / MiB).toFixed(0)} MiB (idle ${(idle / MiB).toFixed(0)})`,
    );
    // Their second prompts, a few tasks at a time while the others wait; then the answers that end them.
    const answer = (id) => {
      const task = taskOf(id);
      return bridge.guard(bridge.request("message/send", answerParams(task.event, task.promptId, "y")));
    };
    for (let from = 0; from < count; from += wave) {
      const group = ids.slice(from, from + wave);
      await Promise.all(group.map(answer));
      await until(() => group.every((id) => taskOf(id).raised.length >= 2), 60_000, "second prompts");
      for (const id of group) detect.waiting.push(taskOf(id).raised[1] - taskOf(id).writes[1]);
    }
    await Promise.all(ids.map(answer));
    await until(() => ids.every((id) => taskOf(id).ended !== undefined), 60_000, "the tasks' ends");
    const failed = ids.filter((id) => taskOf(id).ended !== "completed");
    if (failed.length > 0) throw new Error(`${failed.length} waiting tasks did not complete`);
  } finally {
    await bridge.close();
  }
  const p95 = quantile(detect.waiting, 0.95);
  const perTask = (waiting - idle) / count;
  log(`scale: prompt detection p95 ${p95.toFixed(1)} ms with ${count - 1} tasks waiting`);
  return [
    {
      name: "scale_waiting_tasks_rss_mib",
      value: waiting / MiB,
      unit: "MiB",
      baseline: idle / MiB,
      ratio: waiting / idle,
      goal: `< 400 MiB with ${count} tasks waiting at a prompt (baseline: the idle bridge)`,
      meets: waiting / MiB < 400,
      tasks: count,
      rss_per_task_kib: perTask / 1024,
    },
    {
      name: "scale_waiting_prompt_detect_p95_ms",
      value: p95,
      unit: "ms",
      baseline: quantile(detect.filling, 0.95),
      ratio: p95 / quantile(detect.filling, 0.95),
      goal: `< ${PROMPT_DETECT_GOAL_MS} ms while the other tasks wait (baseline: the first prompts, while they were starting)`,
      meets: p95 < PROMPT_DETECT_GOAL_MS,
      tasks: count,
      prompts: detect.waiting.length,
    },
  ];
}

/** One SSE subscriber on a connection of its own: resolves once attached (its first event), with its text to come. */
function subscribe(server, id) {
  return new Promise((attached, refused) => {
    const req = request(new URL(`/a2a/rest/tasks/${id}:subscribe`, server.url), {
      headers: server.headers,
      agent: false,
    });
    req.once("error", refused);
    req.once("response", (response) => {
      if (response.statusCode !== 200) return refused(new Error(`subscribe answered ${response.statusCode}`));
      let text = "";
      let first = true;
      const done = readSse(response, (data) => {
        if (first) {
          first = false;
          attached({ done: done.then(() => text) });
        }
        const update = data.artifactUpdate;
        if (update?.artifact.artifactId === "stdout") for (const part of update.artifact.parts) text += part.text;
      });
      done.catch(refused);
    });
    req.end();
  });
}

async function subscriberFigures({ quick }) {
  const count = quick ? 200 : 1000;
  const lines = 2000;
  const batch = 50;
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-bench-fanout-"));
  const go = join(dir, "go");
  const server = new HttpBridge([], { env: { BENCH_GO_FILE: go } });
  let expected = "";
  for (let n = 1; n <= lines; n++) expected += `line ${n} of ${lines}\n`;
  const streams = [];
  let before;
  let attached;
  let peak;
  let delivered;
  try {
    await server.ready();
    const control = new Agent({ keepAlive: false });
    const sent = await server.open(
      "POST",
      "/a2a/rest/message:send",
      send10("fanout", { returnImmediately: true, text: String(lines) }),
      control,
    );
    let text = "";
    for await (const chunk of sent) text += chunk;
    const { id } = JSON.parse(text).task;
    control.destroy();
    before = memoryOf(server.pid).rss;
    // A batch at a time: a connection that has not shown its token yet is one of at most 128 (docs/reference.md).
    for (let from = 0; from < count; from += batch) {
      const opened = [];
      for (let i = from; i < Math.min(count, from + batch); i++) opened.push(subscribe(server, id));
      streams.push(...(await withTimeout(Promise.all(opened), 30_000, "a batch of subscribers")));
    }
    attached = memoryOf(server.pid).rss;
    writeFileSync(go, "");
    const texts = await withTimeout(Promise.all(streams.map((stream) => stream.done)), 120_000, "every stream's end");
    delivered = texts.filter((got) => got === expected).length;
    peak = memoryOf(server.pid).hwm;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  log(
    `scale: ${count} subscribers: RSS ${(before / MiB).toFixed(0)} → ${(attached / MiB).toFixed(0)} MiB attached, peak ${(peak / MiB).toFixed(0)} MiB; ${delivered} got every byte`,
  );
  return [
    {
      name: "scale_sse_subscribers_rss_mib",
      value: peak / MiB,
      unit: "MiB",
      baseline: before / MiB,
      ratio: peak / before,
      goal: `every byte delivered to each of ${count} subscribers of one task (baseline: before they subscribed)`,
      meets: delivered === count,
      subscribers: count,
      delivered_whole: delivered,
      attached_rss_mib: attached / MiB,
      rss_per_subscriber_kib: (attached - before) / count / 1024,
      bytes_each: Buffer.byteLength(expected),
    },
  ];
}

/** The kept-tasks group: state dirs of 1 000, 10 000 and 100 000 ended tasks. */
export async function keptTasks({ quick }) {
  return stateDirFigures(quick ? [1000, 10_000] : [1000, 10_000, 100_000]);
}

/** The scale group: tasks waiting at once, and subscribers of one task. */
export async function scale({ quick }) {
  return [...(await waitingFigures({ quick })), ...(await subscriberFigures({ quick }))];
}
