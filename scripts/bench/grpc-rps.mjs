// gRPC figures: GetTask of one stored task (about 2.5 KB as JSON) over gRPC, against the official @a2a-js/sdk 1.3
// gRPC server holding the same task (grpcService, DefaultRequestHandler, InMemoryTaskStore: the peer a user who wants
// gRPC would run; the goal), and beside the same call over our own HTTP JSON-RPC (the binding's cost against
// JSON-RPC; a goal too). One `serve --http --grpc-port 0`. The load is h2load (scripts/bench/h2load.mjs) when it is
// installed, the same way for each target; without it, a node:http2 process (scripts/bench/grpc-load.mjs) whose own
// CPU per call caps the ratio. Rounds take turns, so that changes in the machine's load fall on every target alike
// (docs/benchmarks.md).
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, toBinary } from "@bufbuild/protobuf";
import { probeGrpcGetTask, probeJsonRpcGetTask } from "./get-task-probe.mjs";
import { findH2load, grpcFrame, judgeH2load, parseH2loadLog, parseH2loadSummary, runH2load } from "./h2load.mjs";
import { HttpBridge, send10, startScript } from "./http-lib.mjs";
import { cpuSecondsOf, log, median, track } from "./lib.mjs";

const LOAD = fileURLToPath(new URL("./grpc-load.mjs", import.meta.url));
const SDK_GRPC = fileURLToPath(new URL("./servers/sdk-grpc.mjs", import.meta.url));
const CONCURRENCY = 64;
const GET_TASK_PATH = "/lf.a2a.v1.A2AService/GetTask";

/** The node:http2 load (scripts/bench/grpc-load.mjs), for a machine without h2load. */
function nodeLoad(kind, target, id, token, seconds, warmup) {
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

/**
 * h2load on one target: gRPC on one HTTP/2 connection with 64 calls in flight (as the node load does), JSON-RPC on 64
 * HTTP/1.1 keep-alive connections, one call each at a time. Fails when any answer was not a whole GetTask answer.
 */
async function h2Load(h2load, dir, target, seconds, warmup) {
  const logFile = join(dir, "h2load.log");
  // The warm-up as a run of its own: h2load's --warm-up-time leaves the calls in flight at the switch in the measured
  // counts with no status and some of the warm-up's bytes in the measured traffic, so nothing could be checked.
  if (warmup > 0) await runH2load(h2load, { ...target.h2, seconds: warmup, logFile });
  const before = cpuSecondsOf(target.pid);
  const { summary, log: rows } = await runH2load(h2load, { ...target.h2, seconds, logFile });
  const cpuSeconds = cpuSecondsOf(target.pid) - before;
  const run = judgeH2load(parseH2loadSummary(summary), parseH2loadLog(rows), target.answerBytes);
  if (run.error) throw new Error(`GetTask ${target.name} under h2load: ${run.error}\n${summary}`);
  return { ...run, cpuSeconds };
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
    const gen = await import(new URL("../../dist/grpc/gen/a2a_pb.js", import.meta.url).href);
    const grpcBody = join(dir, "get-task.grpc");
    writeFileSync(grpcBody, grpcFrame(toBinary(gen.GetTaskRequestSchema, create(gen.GetTaskRequestSchema, { id }))));
    const jsonBody = join(dir, "get-task.json");
    writeFileSync(jsonBody, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } }));
    const auth = { authorization: `Bearer ${bridge.token}`, "a2a-version": "1.0" };
    const grpcHeaders = { "content-type": "application/grpc", te: "trailers", ...auth };
    const jsonHeaders = { "content-type": "application/json", ...auth };
    const grpcTarget = (name, hostPort, pid) => ({
      name,
      pid,
      kind: "grpc",
      target: hostPort,
      h2: {
        url: `http://${hostPort}${GET_TASK_PATH}`,
        bodyFile: grpcBody,
        headers: grpcHeaders,
        clients: 1,
        streams: CONCURRENCY,
      },
    });
    const targets = [
      grpcTarget("grpc", bridge.start.grpc, bridge.pid),
      grpcTarget("sdk", sdk.url, sdk.pid),
      {
        name: "jsonrpc",
        pid: bridge.pid,
        kind: "jsonrpc",
        target: bridge.url,
        h2: {
          url: `${bridge.url}/a2a/jsonrpc`,
          bodyFile: jsonBody,
          headers: jsonHeaders,
          clients: CONCURRENCY,
          streams: 1,
          h1: true,
        },
      },
    ];
    const h2load = findH2load();
    if (h2load) {
      for (const target of targets)
        target.answerBytes =
          target.kind === "grpc"
            ? await probeGrpcGetTask(target.h2.url, grpcHeaders, readFileSync(grpcBody))
            : await probeJsonRpcGetTask(target.h2.url, jsonHeaders, readFileSync(jsonBody), id);
      log(`grpc-rps: the load is ${h2load} (${targets.map((t) => `${t.name} ${t.answerBytes} B`).join(", ")})`);
    } else
      log(
        "grpc-rps: h2load is not installed (or BENCH_GRPC_LOAD=node), so the load is scripts/bench/grpc-load.mjs (node:http2), whose own CPU " +
          "per call (about 85 µs) caps the ratio near 1.5 on 2 cores; install h2load (Debian/Ubuntu: " +
          "apt-get install nghttp2-client) for a figure of the servers (docs/benchmarks.md)",
      );
    runs.load = h2load ? "h2load" : "node:http2 (scripts/bench/grpc-load.mjs)";
    for (let round = 0; round < rounds; round++)
      for (const target of targets) {
        const before = cpuSecondsOf(target.pid);
        const run = h2load
          ? await h2Load(h2load, dir, target, seconds, warmup)
          : await nodeLoad(target.kind, target.target, id, bridge.token, seconds, warmup);
        // h2load's runs give the CPU of the measured part; the node load's include its warm-up, so that CPU is scaled
        // to the measured part's share of the time.
        const cpu = run.cpuSeconds ?? ((cpuSecondsOf(target.pid) - before) * seconds) / (seconds + warmup);
        runs[target.name].push({ rps: run.requests / run.seconds, p99: run.p99_ms, cpuUs: (cpu * 1e6) / run.requests });
      }
    runs.answerBytes = answerBytes;
  } finally {
    await sdk?.stop();
    await bridge.close();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const name of ["grpc", "sdk", "jsonrpc"])
    log(
      `GetTask ${name}: ${runs[name].map((r) => `${r.rps.toFixed(0)} req/s (p99 ${r.p99.toFixed(1)} ms, CPU ${r.cpuUs.toFixed(0)} µs a call)`).join(", ")}`,
    );
  const ours = medianRun(runs.grpc);
  const peer = medianRun(runs.sdk);
  const json = medianRun(runs.jsonrpc);
  const cpu = (name) => median(runs[name].map((r) => r.cpuUs));
  const common = {
    unit: "req/s",
    answer_bytes: runs.answerBytes,
    in_flight: CONCURRENCY,
    load: runs.load,
    seconds,
    rounds,
  };
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
