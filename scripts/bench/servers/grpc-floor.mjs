// The floors of `grpc-rps`: a server that answers GetTask with the task's bytes, made once, and does nothing else (no
// token, no decoding, no store). `grpc-js`: grpc-js's Server with channelz off, as src/grpc/server.ts runs it, so its
// rate is the most any GetTask served through grpc-js's server can reach here. `http2`: node:http2 alone, framing
// the answer and its trailers itself, so its rate is what serving gRPC without grpc-js's server could reach
// (docs/benchmarks.md, "Where the cost is"). Arguments: the floor, a file holding the task (a 1.0 Task as JSON).
// Prints { url } (host:port) when it listens.
import { readFileSync } from "node:fs";
import { createServer } from "node:http2";
import { fromJsonString, toBinary } from "@bufbuild/protobuf";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { TaskSchema } from "../../../dist/grpc/gen/a2a_pb.js";

const [floor, file] = process.argv.slice(2);
const answer = Buffer.from(toBinary(TaskSchema, fromJsonString(TaskSchema, readFileSync(file, "utf8"))));
const PATH = "/lf.a2a.v1.A2AService/GetTask";

function grpcJsFloor() {
  const server = new Server({ "grpc.enable_channelz": 0 });
  const same = (bytes) => bytes;
  const method = {
    path: PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  };
  server.addService({ GetTask: method }, { GetTask: (_call, callback) => callback(null, answer) });
  return new Promise((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    ),
  );
}

function http2Floor() {
  // A gRPC message frame: not compressed, the length (4 bytes, big-endian), the message.
  const frame = Buffer.alloc(5 + answer.length);
  frame.writeUInt32BE(answer.length, 1);
  answer.copy(frame, 5);
  const server = createServer();
  server.on("stream", (stream, headers) => {
    if (headers[":path"] !== PATH) return stream.respond({ ":status": 404 }, { endStream: true });
    stream.resume();
    stream.once("end", () => {
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(frame);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server.address().port)));
}

const floors = { "grpc-js": grpcJsFloor, http2: http2Floor };
if (!floors[floor]) throw new Error(`expected a floor, grpc-js or http2, found ${JSON.stringify(floor)}`);
const port = await floors[floor]();
process.stdout.write(`${JSON.stringify({ url: `127.0.0.1:${port}` })}\n`);
process.on("SIGTERM", () => process.exit(0));
