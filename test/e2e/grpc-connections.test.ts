// The gRPC listener's connections are bounded as the HTTP binding's are (docs/security.md, "Over HTTP"): one that
// sends nothing is closed after 3 s, one that spoke but made no call with the token 5 s later, at most 128 such
// wait at once (the oldest goes first), and a client with the token is served all the while, its connection
// untouched, also while 1000 connections that sent one byte or the HTTP/2 preface come and go.
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { create, toBinary } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { GetTaskRequestSchema } from "../../src/grpc/gen/a2a_pb.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";

/** The first bytes an HTTP/2 client sends (RFC 9113 §3.4). */
const PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

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
  const getTask = (client: grpc.Client, token = server.token) =>
    new Promise<number>((resolve) => {
      const metadata = new grpc.Metadata();
      metadata.set("authorization", `Bearer ${token}`);
      const body = Buffer.from(toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "none" })));
      client.makeUnaryRequest(
        "/lf.a2a.v1.A2AService/GetTask",
        (bytes: Buffer) => bytes,
        (bytes: Buffer) => bytes,
        body,
        metadata,
        { deadline: Date.now() + 15_000 },
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

  it("1000 connections that send one byte or the HTTP/2 preface and no call with the token: the token holder is served, its connection kept", {
    timeout: 60_000,
  }, async () => {
    const client = new grpc.Client(target, grpc.credentials.createInsecure());
    assert.equal(await getTask(client), grpc.status.NOT_FOUND, "the token holder's connection is trusted");
    let gone = 0;
    let allGone!: () => void;
    const everyOneClosed = new Promise<void>((resolve) => (allGone = resolve));
    const sockets: Socket[] = [];
    for (let i = 0; i < 1000; i++) {
      const socket = await open(target);
      socket.on("error", () => {});
      // Read what the server sends (its SETTINGS), so that its closing is seen.
      socket.resume();
      socket.once("close", () => {
        gone += 1;
        if (gone === 1000) allGone();
      });
      socket.write(i % 2 === 0 ? "P" : PREFACE);
      sockets.push(socket);
    }
    // A connection of its own (grpc-js would otherwise share the first client's): a token holder who connects now.
    const fresh = new grpc.Client(target, grpc.credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1 });
    assert.equal(await getTask(fresh), grpc.status.NOT_FOUND, "a new client with the token is served");
    assert.equal(await getTask(client), grpc.status.NOT_FOUND, "the first client is served");
    // Every one of them goes: the oldest as newer ones come, the last 128 when their time to make a call is up.
    await everyOneClosed;
    for (const channel of [client, fresh]) {
      const state = channel.getChannel().getConnectivityState(false);
      assert.equal(state, grpc.connectivityState.READY, `an authenticated connection is kept (${state})`);
      assert.equal(await getTask(channel), grpc.status.NOT_FOUND);
    }
    client.close();
    fresh.close();
  });

  it("a connection whose calls carry a wrong token is closed once its time to make an authenticated call is up", {
    timeout: 20_000,
  }, async () => {
    const wrong = new grpc.Client(target, grpc.credentials.createInsecure());
    const states: grpc.connectivityState[] = [];
    assert.equal(await getTask(wrong, "not-the-token"), grpc.status.UNAUTHENTICATED);
    const started = Date.now();
    // The channel leaves READY when the server closes its connection.
    await new Promise<void>((resolve) => {
      const watch = () => {
        const state = wrong.getChannel().getConnectivityState(false);
        states.push(state);
        if (state !== grpc.connectivityState.READY) return resolve();
        wrong.getChannel().watchConnectivityState(state, Date.now() + 15_000, watch);
      };
      watch();
    });
    assert.ok(Date.now() - started >= 3000, `closed by the time limit, not at once (${states.join(", ")})`);
    wrong.close();
  });
});
