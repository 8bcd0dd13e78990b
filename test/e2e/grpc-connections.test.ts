// The gRPC listener's connections are bounded as the HTTP binding's are (docs/security.md, "Over HTTP"): one that
// sends nothing is closed after 3 s, at most 128 such wait at once (the oldest goes first), and a client with the
// token is served all the while, its connection untouched.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { GetTaskRequestSchema } from "../../src/grpc/gen/a2a_pb.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";

const closed = (socket: Socket) => new Promise<void>((resolve) => socket.once("close", () => resolve()));

function open(target: string): Promise<Socket> {
  const [host, port] = [target.slice(0, target.lastIndexOf(":")), Number(target.slice(target.lastIndexOf(":") + 1))];
  return new Promise((resolve, reject) => {
    const socket = connect(port, host, () => resolve(socket));
    socket.once("error", reject);
  });
}

describe("serve --http --grpc-port: connections that send nothing", () => {
  let server: HttpServer;
  let target: string;
  before(async () => {
    server = await startHttp(["--grpc-port", "0"]);
    target = (server.start as unknown as { grpc: string }).grpc;
  });
  after(async () => {
    await server?.close();
  });

  /** GetTask of a task that does not exist, with the token: resolves with the gRPC status code it answered. */
  const getTask = (client: grpc.Client) =>
    new Promise<number>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${server.token}`);
      const body = Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "none" })));
      client.makeUnaryRequest(
        "/lf.a2a.v1.A2AService/GetTask",
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        body,
        metadata,
        (error) => resolve(error?.code ?? grpc.status.OK),
      );
    });

  it("a connection that sends nothing is closed after 3 s; a client's connection is kept", {
    timeout: 20_000,
  }, async () => {
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    assert.equal(await getTask(client), grpc.status.NOT_FOUND, "the client is served");
    const idle = await open(target);
    const started = Date.now();
    await closed(idle);
    assert.ok(Date.now() - started >= 2500, "closed by the first-call limit, not at once");
    // The client's connection outlived the idle one: its next call goes out on it at once.
    const state = client.getChannel().getConnectivityState(false);
    assert.equal(state, grpc.connectivityState.READY, `the client's channel is still connected (${state})`);
    assert.equal(await getTask(client), grpc.status.NOT_FOUND);
    client.close();
  });

  it("past 128 idle connections the oldest is closed, and a client with the token is still served", {
    timeout: 20_000,
  }, async () => {
    const sockets: Socket[] = [];
    for (let i = 0; i < 128; i++) sockets.push(await open(target));
    const oldest = closed(sockets[0] as Socket);
    sockets.push(await open(target));
    await oldest;
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    assert.equal(await getTask(client), grpc.status.NOT_FOUND);
    client.close();
    for (const socket of sockets) socket.destroy();
  });
});
