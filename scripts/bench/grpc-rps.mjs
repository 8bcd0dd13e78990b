// gRPC figures: GetTask of one stored task (about 2.5 KB as JSON) over gRPC, against the official @a2a-js/sdk 1.3
// gRPC server holding the same task (grpcService, DefaultRequestHandler, InMemoryTaskStore: the peer a user who wants
// gRPC would run; the goal), and beside the same call over our own HTTP JSON-RPC (the binding's cost against
// JSON-RPC; a goal too). One `serve --http --grpc-port 0`; the load from a process of its own
// (scripts/bench/grpc-load.mjs) the same way for each. Rounds take turns, so that changes in the machine's load fall
// on every target alike (docs/benchmarks.md).
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { HttpBridge, send10, startScript } from "./http-lib.mjs";
import { cpuSecondsOf, log, median, track } from "./lib.mjs";

const LOAD = fileURLToPath(new URL("./grpc-load.mjs", import.meta.url));
const SDK_GRPC = fileURLToPath(new URL("./servers/sdk-grpc.mjs", import.meta.url));
const CONCURRENCY = 64;

function load(kind, target, id, token, seconds, warmup) {
  const args = [LOAD, kind, target, id, token, String(seconds), String(CONCURRENCY), String(warmup)];
  const child = track(spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] }));
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.once("close", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${kind} load exited ${code}`)),
    );
  });
}

/** The run with the median rate of requests. */
const medianRun = (runs) => [...runs].sort((a, b) => a.rps - b.rps)[Math.floor(runs.length / 2)];

export async function grpcGetTaskRps({ quick }) {
  const seconds = quick ? 2 : 5;
  const warmup = quick ? 1 : 2;
  const rounds = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-bench-"));
  const bridge = new HttpBridge(["--grpc-port", "0"]);
  let sdk;
  const runs = { grpc: [], sdk: [], jsonrpc: [] };
  try {
    await bridge.ready();
    const { id } = (await bridge.call("SendMessage", send10(undefined, { text: "x".repeat(1000) }))).task;
    const task = await bridge.call("GetTask", { id });
    const answerBytes = Buffer.byteLength(JSON.stringify(task));
    writeFileSync(join(dir, "task.json"), JSON.stringify(task));
    sdk = await startScript(SDK_GRPC, [join(dir, "task.json")]);
    const targets = {
      grpc: ["grpc", bridge.start.grpc, bridge.pid],
      sdk: ["grpc", sdk.url, sdk.pid],
      jsonrpc: ["jsonrpc", bridge.url, bridge.pid],
    };
    for (let round = 0; round < rounds; round++)
      for (const [name, [kind, target, pid]] of Object.entries(targets)) {
        const before = cpuSecondsOf(pid);
        const run = await load(kind, target, id, bridge.token, seconds, warmup);
        // CPU over the warm-up too: divided by the requests of the measured part, scaled to its share of the time.
        const cpu = cpuSecondsOf(pid) - before;
        runs[name].push({
          rps: run.requests / run.seconds,
          p99: run.p99_ms,
          cpuUs: (cpu * 1e6 * (seconds / (seconds + warmup))) / run.requests,
        });
      }
    runs.answerBytes = answerBytes;
  } finally {
    await sdk?.stop();
    await bridge.close();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const name of ["grpc", "sdk", "jsonrpc"])
    log(
      `GetTask ${name}: ${runs[name].map((r) => `${r.rps.toFixed(0)} req/s (p99 ${r.p99.toFixed(1)} ms)`).join(", ")}`,
    );
  const ours = medianRun(runs.grpc);
  const peer = medianRun(runs.sdk);
  const json = medianRun(runs.jsonrpc);
  const cpu = (name) => median(runs[name].map((r) => r.cpuUs));
  const common = { unit: "req/s", answer_bytes: runs.answerBytes, connections: CONCURRENCY, seconds, rounds };
  return [
    {
      name: "grpc_get_task_rps",
      value: ours.rps,
      ...common,
      baseline: peer.rps,
      ratio: ours.rps / peer.rps,
      goal: ">= 2 x the @a2a-js/sdk gRPC server, with a lower p99",
      meets: ours.rps / peer.rps >= 2 && ours.p99 < peer.p99,
      baseline_name: "the @a2a-js/sdk 1.3 gRPC server (grpcService, DefaultRequestHandler, InMemoryTaskStore)",
      p99_ms: ours.p99,
      baseline_p99_ms: peer.p99,
      server_cpu_us_per_request: cpu("grpc"),
      baseline_server_cpu_us_per_request: cpu("sdk"),
    },
    {
      name: "grpc_get_task_vs_jsonrpc",
      value: ours.rps,
      ...common,
      baseline: json.rps,
      ratio: ours.rps / json.rps,
      goal: ">= 0.5 x the same GetTask over our HTTP JSON-RPC, same server, same run",
      meets: ours.rps / json.rps >= 0.5,
      p99_ms: ours.p99,
      baseline_p99_ms: json.p99,
      server_cpu_us_per_request: cpu("grpc"),
      baseline_server_cpu_us_per_request: cpu("jsonrpc"),
    },
  ];
}
