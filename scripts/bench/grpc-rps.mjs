// gRPC figure: GetTask of one stored task over gRPC beside the same call over HTTP JSON-RPC, against one server
// (`serve --http --grpc-port 0`), the load from a process of its own (scripts/bench/grpc-load.mjs) the same way for
// both. Rounds take turns, so that changes in the machine's load fall on both alike. No goal: the figure says what
// the binding costs against the JSON-RPC one (docs/benchmarks.md).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { cpuSecondsOf, log, median, track } from "./lib.mjs";

const LOAD = fileURLToPath(new URL("./grpc-load.mjs", import.meta.url));
const CONCURRENCY = 64;

function load(kind, target, id, token, seconds) {
  const child = track(
    spawn(process.execPath, [LOAD, kind, target, id, token, String(seconds), String(CONCURRENCY)], {
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.once("close", (code) =>
      code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`${kind} load exited ${code}`)),
    );
  });
}

export async function grpcGetTaskRps({ quick }) {
  const seconds = quick ? 2 : 5;
  const rounds = quick ? 1 : 3;
  const bridge = new HttpBridge(["--grpc-port", "0"]);
  const rates = { grpc: [], jsonrpc: [] };
  const cpu = { grpc: [], jsonrpc: [] };
  try {
    await bridge.ready();
    const { id } = (await bridge.call("SendMessage", send10(undefined, { text: "x".repeat(1000) }))).task;
    const targets = { grpc: bridge.start.grpc, jsonrpc: bridge.url };
    for (let round = 0; round < rounds; round++)
      for (const [kind, target] of Object.entries(targets)) {
        const before = cpuSecondsOf(bridge.pid);
        const run = await load(kind, target, id, bridge.token, seconds);
        rates[kind].push(run.requests / run.seconds);
        cpu[kind].push(((cpuSecondsOf(bridge.pid) - before) * 1e6) / run.requests);
      }
  } finally {
    await bridge.close();
  }
  for (const [kind, list] of Object.entries(rates))
    log(`GetTask over ${kind}: ${list.map((r) => r.toFixed(0)).join(", ")} req/s`);
  const grpcRps = median(rates.grpc);
  const jsonRps = median(rates.jsonrpc);
  return [
    {
      name: "grpc_get_task_rps",
      value: grpcRps,
      unit: "req/s",
      baseline: jsonRps,
      ratio: grpcRps / jsonRps,
      goal: null,
      meets: null,
      baseline_name: "the same GetTask over HTTP JSON-RPC, same server, same load",
      connections: CONCURRENCY,
      seconds,
      rounds,
      server_cpu_us_per_request: median(cpu.grpc),
      baseline_server_cpu_us_per_request: median(cpu.jsonrpc),
    },
  ];
}
