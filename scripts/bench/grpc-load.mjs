// The load of `grpc-rps` (scripts/bench/grpc-rps.mjs) where h2load is not installed, in a process of its own (its own
// CPU, about 85 µs a call, caps the ratio on 2 cores: docs/benchmarks.md): GetTask of one task for a while,
// `concurrency` calls in flight, over gRPC (one HTTP/2 session, its calls multiplexed) or over HTTP JSON-RPC (keep-alive
// connections, one call each at a time), after `warmup` seconds of the same load that are not counted. Prints
// `{ requests, seconds, p99_ms }` on stdout.
// Usage: node grpc-load.mjs grpc|jsonrpc <target> <task id> <token> <seconds> <concurrency> [warmup seconds]
import { Agent, request } from "node:http";
import { connect } from "node:http2";
import { create, toBinary } from "@bufbuild/protobuf";
import { grpcFrame } from "./h2load.mjs";

const [kind, target, id, token, seconds, concurrency, warmup = "0"] = process.argv.slice(2);
const gen = await import(new URL("../../dist/grpc/gen/a2a_pb.js", import.meta.url).href);

/**
 * gRPC unary calls over one HTTP/2 session of node:http2 itself: a client as light as the JSON-RPC one, so that on a
 * machine of two cores the load's own cost does not set the rate (grpc-js's client costs about as much per call as a
 * server). An answer counts when its trailers say grpc-status 0.
 */
function grpcCaller() {
  const session = connect(`http://${target}`);
  session.on("error", () => {});
  const body = grpcFrame(toBinary(gen.GetTaskRequestSchema, create(gen.GetTaskRequestSchema, { id })));
  const headers = {
    ":method": "POST",
    ":path": "/lf.a2a.v1.A2AService/GetTask",
    "content-type": "application/grpc",
    te: "trailers",
    authorization: `Bearer ${token}`,
    "a2a-version": "1.0",
  };
  return () =>
    new Promise((resolve, reject) => {
      const stream = session.request(headers);
      let status;
      stream.once("trailers", (trailers) => (status = trailers["grpc-status"]));
      stream.once("response", (answer) => (status ??= answer["grpc-status"]));
      stream.on("data", () => {});
      stream.once("end", () => (status === "0" ? resolve() : reject(new Error(`grpc-status ${status}`))));
      stream.once("error", reject);
      stream.end(body);
    });
}

function jsonRpcCaller() {
  const agent = new Agent({ keepAlive: true, maxSockets: Number(concurrency) });
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } });
  const headers = { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "A2A-Version": "1.0" };
  return () =>
    new Promise((resolve, reject) => {
      const req = request(`${target}/a2a/jsonrpc`, { method: "POST", headers, agent }, (response) => {
        response.on("data", () => {});
        response.once("end", () =>
          response.statusCode === 200 ? resolve() : reject(new Error(`${response.statusCode}`)),
        );
      });
      req.once("error", reject);
      req.end(body);
    });
}

/** Calls for `ms`, `concurrency` at a time; the latency of each call, in ms. */
async function drive(call, ms) {
  const until = performance.now() + ms;
  const latencies = [];
  await Promise.all(
    Array.from({ length: Number(concurrency) }, async () => {
      while (performance.now() < until) {
        const t = performance.now();
        await call();
        latencies.push(performance.now() - t);
      }
    }),
  );
  return latencies;
}

const call = kind === "grpc" ? grpcCaller() : jsonRpcCaller();
if (Number(warmup) > 0) await drive(call, Number(warmup) * 1000);
const t0 = performance.now();
const latencies = await drive(call, Number(seconds) * 1000);
const elapsed = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const p99 = latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))];
process.stdout.write(`${JSON.stringify({ requests: latencies.length, seconds: elapsed, p99_ms: p99 })}\n`);
process.exit(0);
