// Large output through every stream, over both bindings, arrives exactly as the command wrote it (CONTRACT 5.4, 7.3,
// 8.4): the `big` fixture's multi-byte UTF-8, written in odd-sized chunks cut inside characters, goes out as bytes
// escaped straight from what it wrote; the mostly invalid UTF-8 of `binary` goes out as its decoding.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { assertStreamResponse } from "../helpers/a2a-schema.js";
import { binaryFixtureBytes } from "../helpers/binary-output.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { closesV1, paramsV1 } from "../helpers/v1-requests.js";
import { eventText, type Wire } from "../helpers/wire.js";

const BYTES = 3 * 1024 * 1024;
const env = { FIXTURE_BYTES: String(BYTES) };
const TIMEOUT_MS = 60_000;
const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** The stdout text rebuilt from a stream's events is the `big` fixture's output, byte for byte. */
function assertBig(events: Wire[]): void {
  const written = /sha256 ([0-9a-f]{64})/.exec(eventText(events, "stderr"))?.[1];
  assert.ok(written, "the fixture printed the sha256 of its output");
  const text = eventText(events, "stdout");
  assert.equal(Buffer.byteLength(text), BYTES);
  assert.equal(sha256(text), written);
}

const binaryText = binaryFixtureBytes().stdout.toString("utf8");

describe("serve --stdio: large output through message/stream and SendStreamingMessage", () => {
  let bridge: RpcBridge;
  before(async () => {
    bridge = startBridge({ env });
    await bridge.ready();
  });
  after(() => bridge.close());

  const stream03 = async (fixture: string) => {
    const task = await bridge.call("message/stream", envelopeParams(fixture), TIMEOUT_MS);
    return bridge.eventsUntilFinal(task.id, TIMEOUT_MS);
  };
  const stream10 = async (fixture: string) => {
    const first = await bridge.call("SendStreamingMessage", paramsV1(envelopeParams(fixture)), TIMEOUT_MS);
    const events = await bridge.eventsUntil(first.task.id, closesV1, TIMEOUT_MS);
    for (const event of events.filter((e) => e.artifactUpdate).slice(0, 3)) assertStreamResponse(event);
    return events;
  };

  it("0.3: multi-byte UTF-8 arrives byte for byte", async () => assertBig(await stream03("big")));
  it("1.0: multi-byte UTF-8 arrives byte for byte", async () => assertBig(await stream10("big")));
  it("0.3 and 1.0: bytes that are not UTF-8 arrive as their decoding", async () => {
    assert.equal(eventText(await stream03("binary"), "stdout"), binaryText);
    assert.equal(eventText(await stream10("binary"), "stdout"), binaryText);
  });
});

describe("serve --http: large output through REST message:stream and JSON-RPC SendStreamingMessage", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp([], env);
  });
  after(() => server.close());

  const rest = async (fixture: string) => {
    const stream = await server.stream("/a2a/rest/message:stream", {
      method: "POST",
      body: send10("go", { envelope: { working_dir: fixture } }),
    });
    assert.equal(stream.status, 200);
    return (await stream.rest(TIMEOUT_MS)).map((event) => event.data);
  };
  const jsonRpc = async (fixture: string) => {
    const params = send10("go", { envelope: { working_dir: fixture } });
    const stream = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 7, method: "SendStreamingMessage", params },
    });
    assert.equal(stream.status, 200);
    const events = await stream.rest(TIMEOUT_MS);
    for (const event of events) assert.equal(event.data.id, 7);
    return events.map((event) => event.data.result);
  };

  it("REST: multi-byte UTF-8 arrives byte for byte", async () => assertBig(await rest("big")));
  it("JSON-RPC: multi-byte UTF-8 arrives byte for byte", async () => assertBig(await jsonRpc("big")));
  it("REST and JSON-RPC: bytes that are not UTF-8 arrive as their decoding", async () => {
    assert.equal(eventText(await rest("binary"), "stdout"), binaryText);
    assert.equal(eventText(await jsonRpc("binary"), "stdout"), binaryText);
  });
});
