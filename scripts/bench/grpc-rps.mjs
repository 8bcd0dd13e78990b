// gRPC figures: GetTask of one stored task (about 2.5 KB as JSON) over gRPC, against the official @a2a-js/sdk 1.3
// gRPC server holding the same task (grpcService, DefaultRequestHandler, InMemoryTaskStore: the peer a user who wants
// gRPC would run; the goal), beside the same call over our own HTTP JSON-RPC (the binding's cost against JSON-RPC; a
// goal too), and beside two floors that only answer (scripts/bench/servers/grpc-floor.mjs: grpc-js's server, and
// node:http2 alone), which say how far any server on each can go. The load is h2load (scripts/bench/h2load.mjs) when
// it is installed, the same way for each target; without it, a node:http2 process (scripts/bench/grpc-load.mjs) whose
// own CPU per call caps the ratio. Rounds take turns, so that changes in the machine's load fall on every target
// alike, and each round starts its server afresh (docs/benchmarks.md, "How the figures are taken").
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, toBinary } from "@bufbuild/protobuf";
import { freshRounds } from "./fresh-rounds.mjs";
import { probeGrpcGetTask, probeJsonRpcGetTask } from "./get-task-probe.mjs";
import { findH2load, grpcFrame, judgeH2load, parseH2loadLog, parseH2loadSummary, runH2load } from "./h2load.mjs";
import { HttpBridge, send10, startScript } from "./http-lib.mjs";
import { cpuSecondsOf, log, median, track } from "./lib.mjs";

const LOAD = fileURLToPath(new URL("./grpc-load.mjs", import.meta.url));
const SDK_GRPC = fileURLToPath(new URL("./servers/sdk-grpc.mjs", import.meta.url));
const FLOOR = fileURLToPath(new URL("./servers/grpc-floor.mjs", import.meta.url));
/** The floors (scripts/bench/servers/grpc-floor.mjs): the most a GetTask server on each of them can reach here. */
const FLOORS = ["grpc-js", "http2"];
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

/** A GetTask body file of its own for each server started, since each of our servers holds its own task. */
let bodies = 0;

/**
 * One of our servers (`serve --http --grpc-port 0`) holding the task: SendMessage of the bench's message, then GetTask.
 * `kind` says which of its bindings the round loads.
 */
async function startOurs(dir, kind) {
  const bridge = new HttpBridge(["--grpc-port", "0"]);
  try {
    await bridge.ready();
    const { id } = (await bridge.call("SendMessage", send10(undefined, { text: "x".repeat(1000) }))).task;
    const task = await bridge.call("GetTask", { id });
    const auth = { authorization: `Bearer ${bridge.token}`, "a2a-version": "1.0" };
    const target =
      kind === "grpc" ? grpcTarget(dir, bridge.start.grpc, id, auth) : jsonRpcTarget(dir, bridge.url, id, auth);
    return { ...target, task, pid: bridge.pid, token: bridge.token, stop: () => bridge.close() };
  } catch (error) {
    await bridge.close();
    throw error;
  }
}

/** A baseline or floor script holding the task of `taskFile` (it checks no token: the same headers go to it). */
async function startScriptTarget(dir, script, args, id) {
  const server = await startScript(script, args);
  return {
    ...grpcTarget(dir, server.url, id, { authorization: "Bearer -", "a2a-version": "1.0" }),
    pid: server.pid,
    token: "-",
    stop: server.stop,
  };
}

function grpcTarget(dir, hostPort, id, auth) {
  const bodyFile = join(dir, `get-task-${++bodies}.grpc`);
  writeFileSync(bodyFile, grpcFrame(toBinary(gen.GetTaskRequestSchema, create(gen.GetTaskRequestSchema, { id }))));
  const headers = { "content-type": "application/grpc", te: "trailers", ...auth };
  const url = `http://${hostPort}${GET_TASK_PATH}`;
  return {
    id,
    kind: "grpc",
    target: hostPort,
    h2: { url, bodyFile, headers, clients: 1, streams: CONCURRENCY },
    probe: () => probeGrpcGetTask(url, headers, readFileSync(bodyFile)),
  };
}

function jsonRpcTarget(dir, base, id, auth) {
  const bodyFile = join(dir, `get-task-${++bodies}.json`);
  writeFileSync(bodyFile, JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } }));
  const headers = { "content-type": "application/json", ...auth };
  const url = `${base}/a2a/jsonrpc`;
  return {
    id,
    kind: "jsonrpc",
    target: base,
    h2: { url, bodyFile, headers, clients: CONCURRENCY, streams: 1, h1: true },
    probe: () => probeJsonRpcGetTask(url, headers, readFileSync(bodyFile), id),
  };
}

let gen;

export async function grpcGetTaskRps({ quick }) {
  const seconds = quick ? 2 : 5;
  const warmup = quick ? 1 : 2;
  const rounds = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-bench-"));
  gen ??= await import(new URL("../../dist/grpc/gen/a2a_pb.js", import.meta.url).href);
  const h2load = findH2load();
  const runs = { grpc: [], sdk: [], jsonrpc: [], "grpc-js": [], http2: [] };
  const meta = { load: h2load ? "h2load" : "node:http2 (scripts/bench/grpc-load.mjs)" };
  try {
    // The task every server holds: ours make it again at each start (the same message, so the same answer but its
    // id), the others read it from this file.
    const first = await startOurs(dir, "grpc");
    await first.stop();
    const taskFile = join(dir, "task.json");
    writeFileSync(taskFile, JSON.stringify(first.task));
    meta.answerBytes = Buffer.byteLength(JSON.stringify(first.task));
    const targets = {
      grpc: () => startOurs(dir, "grpc"),
      sdk: () => startScriptTarget(dir, SDK_GRPC, [taskFile], first.task.id),
      jsonrpc: () => startOurs(dir, "jsonrpc"),
      // The floors are measured with h2load only: under the node load, the load itself caps them.
      ...(h2load
        ? Object.fromEntries(
            FLOORS.map((floor) => [floor, () => startScriptTarget(dir, FLOOR, [floor, taskFile], first.task.id)]),
          )
        : {}),
    };
    if (h2load) log(`grpc-rps: the load is ${h2load}`);
    else
      log(
        "grpc-rps: h2load is not installed (or BENCH_GRPC_LOAD=node), so the load is scripts/bench/grpc-load.mjs (node:http2), whose own CPU " +
          "per call (about 85 µs) caps the ratio near 1.5 on 2 cores; install h2load (Debian/Ubuntu: " +
          "apt-get install nghttp2-client) for a figure of the servers (docs/benchmarks.md)",
      );
    await freshRounds(targets, rounds, async (name, server, round) => {
      const answerBytes = h2load ? await server.probe() : undefined;
      if (round === 0 && h2load) log(`grpc-rps: ${name} answers GetTask in ${answerBytes} B`);
      const before = cpuSecondsOf(server.pid);
      const run = h2load
        ? await h2Load(h2load, dir, { ...server, name, answerBytes }, seconds, warmup)
        : await nodeLoad(server.kind, server.target, server.id, server.token, seconds, warmup);
      // h2load's runs give the CPU of the measured part; the node load's include its warm-up, so that CPU is
      // scaled to the measured part's share of the time.
      const cpu = run.cpuSeconds ?? ((cpuSecondsOf(server.pid) - before) * seconds) / (seconds + warmup);
      runs[name].push({ rps: run.requests / run.seconds, p99: run.p99_ms, cpuUs: (cpu * 1e6) / run.requests });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  for (const name of Object.keys(runs).filter((name) => runs[name].length > 0))
    log(
      `GetTask ${name}: ${runs[name].map((r) => `${r.rps.toFixed(0)} req/s (p99 ${r.p99.toFixed(1)} ms, CPU ${r.cpuUs.toFixed(0)} µs a call)`).join(", ")}`,
    );
  const ours = medianRun(runs.grpc);
  const peer = medianRun(runs.sdk);
  const json = medianRun(runs.jsonrpc);
  const cpu = (name) => median(runs[name].map((r) => r.cpuUs));
  const common = {
    unit: "req/s",
    answer_bytes: meta.answerBytes,
    in_flight: CONCURRENCY,
    load: meta.load,
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
    // No goal: how far the goal is from each floor, and how much of a floor's rate ours keeps.
    ...FLOORS.filter((floor) => runs[floor].length > 0).map((floor) => {
      const run = medianRun(runs[floor]);
      return {
        name: `grpc_get_task_floor_${floor.replace("-", "_")}`,
        value: run.rps,
        ...common,
        baseline: peer.rps,
        ratio: run.rps / peer.rps,
        goal: "none: the SDK's rate against a server on this floor that does nothing but answer (the ceiling of grpc_get_task_rps there)",
        meets: null,
        ours_of_floor: ours.rps / run.rps,
        p99_ms: run.p99,
        server_cpu_us_per_request: cpu(floor),
        baseline_server_cpu_us_per_request: cpu("sdk"),
      };
    }),
  ];
}
