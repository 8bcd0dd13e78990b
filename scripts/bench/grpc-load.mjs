// The load of `grpc-rps` (scripts/bench/grpc-rps.mjs), in a process of its own: GetTask of one task for a while,
// `concurrency` calls in flight, over gRPC (one channel, its calls multiplexed) or over HTTP JSON-RPC (keep-alive
// connections, one call each at a time). Prints `{ requests, seconds }` on stdout.
// Usage: node grpc-load.mjs grpc|jsonrpc <target> <task id> <token> <seconds> <concurrency>
import { Agent, request } from "node:http";
import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";

const [kind, target, id, token, seconds, concurrency] = process.argv.slice(2);
const gen = await import(new URL("../../dist/grpc/gen/a2a_pb.js", import.meta.url).href);

function grpcCaller() {
  const client = new grpc.Client(target, grpc.credentials.createInsecure());
  const metadata = new grpc.Metadata();
  metadata.set("authorization", `Bearer ${token}`);
  const body = Buffer.from(toBinary(gen.GetTaskRequestSchema, create(gen.GetTaskRequestSchema, { id })));
  return () =>
    new Promise((resolve, reject) =>
      client.makeUnaryRequest(
        "/lf.a2a.v1.A2AService/GetTask",
        (bytes) => bytes,
        (bytes) => bytes,
        body,
        metadata,
        (error) => (error ? reject(error) : resolve()),
      ),
    );
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

const call = kind === "grpc" ? grpcCaller() : jsonRpcCaller();
const until = performance.now() + Number(seconds) * 1000;
let requests = 0;
const t0 = performance.now();
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (performance.now() < until) {
      await call();
      requests += 1;
    }
  }),
);
process.stdout.write(`${JSON.stringify({ requests, seconds: (performance.now() - t0) / 1000 })}\n`);
process.exit(0);
