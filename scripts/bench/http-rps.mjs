// HTTP figure 2: GetTask of a stored task (about 2.5 KB of JSON) over 64 keep-alive connections, autocannon in a
// process of its own, against the official @a2a-js/sdk 1.3 express server holding the same task (the goal), and, as
// a reference without a goal, the CPU time per request beside a minimal Hono app answering the same bytes: what the
// framework itself costs. (A goal against a bare node:http server was withdrawn: the framework's own floor is most of
// the distance; docs/benchmarks.md.) Rounds take turns, each on servers started for it (freshRounds).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freshRounds } from "./fresh-rounds.mjs";
import { autocannon, HttpBridge, send10, startScript } from "./http-lib.mjs";
import { cpuSecondsOf, log, median } from "./lib.mjs";

const TARGET_BYTES = 2560;
const server = (name) => fileURLToPath(new URL(`./servers/${name}.mjs`, import.meta.url));

/** An echo task whose GetTask answer is about TARGET_BYTES long; resolves with its id and that answer's text. */
async function storedTask(bridge) {
  const answerOf = async (id) => {
    const response = await bridge.open("POST", "/a2a/jsonrpc", getTask(id));
    let text = "";
    for await (const chunk of response) text += chunk;
    return text;
  };
  const probe = (await bridge.call("SendMessage", send10(undefined, { text: "x" }))).task.id;
  // The text is in the task twice: the request in its history, and the echoed output.
  const base = Buffer.byteLength(await answerOf(probe));
  const text = "x".repeat(Math.max(1, Math.floor((TARGET_BYTES - base) / 2)));
  const { id } = (await bridge.call("SendMessage", send10(undefined, { text }))).task;
  return { id, answer: await answerOf(id) };
}

const getTask = (id) => ({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } });

/** The run with the median rate of requests. */
const medianRun = (runs) =>
  [...runs].sort((a, b) => a.requests.average - b.requests.average)[Math.floor(runs.length / 2)];

const HEADERS = { "Content-Type": "application/json", "A2A-Version": "1.0" };

/** One of our servers holding the task: its URL, its headers and its GetTask body. */
async function startOurs() {
  const bridge = new HttpBridge();
  try {
    await bridge.ready();
    const { id, answer } = await storedTask(bridge);
    const headers = { ...HEADERS, Authorization: `Bearer ${bridge.token}` };
    return {
      url: bridge.url,
      pid: bridge.pid,
      headers,
      body: JSON.stringify(getTask(id)),
      answer,
      stop: () => bridge.close(),
    };
  } catch (error) {
    await bridge.close();
    throw error;
  }
}

export async function httpGetTaskRps({ quick }) {
  const seconds = quick ? 2 : 5;
  const warmup = quick ? 1 : 2;
  const rounds = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-bench-"));
  const runs = { ours: [], sdk: [], hono: [] };
  /** Each server's CPU µs per request answered, one figure per round. */
  const cpu = { ours: [], sdk: [], hono: [] };
  let bytes;
  try {
    // The task the others hold, from one of ours; each of ours makes it again (the same answer but its id).
    const first = await startOurs();
    await first.stop();
    bytes = Buffer.byteLength(first.answer);
    writeFileSync(join(dir, "answer.json"), first.answer);
    writeFileSync(join(dir, "task.json"), JSON.stringify(JSON.parse(first.answer).result));
    const script = async (name, file) => {
      const started = await startScript(server(name), [join(dir, file)]);
      return { ...started, headers: HEADERS, body: first.body };
    };
    const targets = {
      ours: startOurs,
      sdk: () => script("sdk", "task.json"),
      hono: () => script("hono", "answer.json"),
    };
    await freshRounds(targets, rounds, async (name, { url, pid, headers, body }) => {
      const before = cpuSecondsOf(pid);
      const run = await autocannon(`${url}/a2a/jsonrpc`, { body, headers, seconds, warmup });
      runs[name].push(run);
      cpu[name].push(((cpuSecondsOf(pid) - before) * 1e6) / run.allRequests);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const picked = Object.fromEntries(Object.entries(runs).map(([name, list]) => [name, medianRun(list)]));
  const rps = (run) => run.requests.average;
  const p99 = (run) => run.latency.p99;
  for (const [name, list] of Object.entries(runs))
    log(`GetTask ${name}: ${list.map((run) => `${rps(run).toFixed(0)} req/s (p99 ${p99(run)} ms)`).join(", ")}`);
  const ours = picked.ours;
  const vsSdk = rps(ours) / rps(picked.sdk);
  const common = {
    value: rps(ours),
    unit: "req/s",
    answer_bytes: bytes,
    connections: 64,
    seconds,
    rounds,
    p99_ms: p99(ours),
  };
  return [
    {
      name: "http_get_task_rps",
      ...common,
      baseline: rps(picked.sdk),
      ratio: vsSdk,
      goal: ">= 3 x the @a2a-js/sdk express server, with a lower p99",
      meets: vsSdk >= 3 && p99(ours) < p99(picked.sdk),
      baseline_p99_ms: p99(picked.sdk),
    },
    {
      name: "http_get_task_cpu_us_per_request",
      value: median(cpu.ours),
      unit: "µs CPU/request",
      baseline: median(cpu.hono),
      ratio: median(cpu.ours) / median(cpu.hono),
      goal: "none: a reference, a minimal Hono app answering the same bytes",
      meets: null,
      sdk_cpu_us_per_request: median(cpu.sdk),
      rounds,
    },
  ];
}
