// runtime/v1 (CONTRACT 9.2), --require-extensions (9.5) and event numbers (9.4) against the built binary: the card's
// runtime params, the runtime keys on every task of both families and bindings, an instance id kept by a state dir,
// the -32008 refusals, and SSE `id:` lines without a gap or an overlap after the Task while a runner floods output.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { runCli } from "../helpers/cli.js";
import { echoParams, envelopeParams } from "../helpers/envelopes.js";
import { type HttpServer, type SseEvent, startHttp } from "../helpers/http-server.js";
import { BOTH, IDEMPOTENCY_URI, RUNTIME_URI } from "../helpers/send-drivers.js";
import { tempDir } from "../helpers/state-dir.js";
import { paramsV1 } from "../helpers/v1-requests.js";
import type { Wire } from "../helpers/wire.js";

const ADAPTER_URI = "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1";
const UUID_V4_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The runtime's published rules for runtime/v1's card params: exactly the keys runtime, provider, loadout and
 * instance_id; runtime one of the runtime kinds ("host" here, as a process on this machine); provider and loadout
 * non-empty strings; instance_id a UUID of version 4 or 7. Returns the instance id.
 */
function checkRuntimeParams(card: Wire): string {
  const extension = card.capabilities.extensions.find((e: Wire) => e.uri === RUNTIME_URI);
  assert.ok(extension, "the card declares runtime/v1");
  const params = extension.params;
  assert.deepEqual(Object.keys(params).sort(), ["instance_id", "loadout", "provider", "runtime"]);
  assert.ok(["host", "container", "vm"].includes(params.runtime));
  assert.equal(params.runtime, "host");
  assert.equal(params.provider, "adapter-command");
  assert.equal(params.loadout, "local");
  assert.match(params.instance_id, UUID_V4_V7);
  const adapter = card.capabilities.extensions.find((e: Wire) => e.uri === ADAPTER_URI);
  assert.equal(adapter.params.instance_id, params.instance_id);
  return params.instance_id;
}

function checkIdempotencyParams(card: Wire, required: boolean): void {
  const extension = card.capabilities.extensions.find((e: Wire) => e.uri === IDEMPOTENCY_URI);
  assert.deepEqual(extension.params, {
    ttl_seconds: 86400,
    canonicalization: "jcs-rfc8785",
    hash_algorithm: "sha-256",
    max_cache_entries: 10000,
  });
  assert.equal(extension.required, required);
  assert.equal(card.capabilities.extensions.find((e: Wire) => e.uri === RUNTIME_URI).required, required);
}

function checkRuntimeKeys(task: Wire, instance: string, where: string): void {
  assert.equal(task.metadata["runtime.instance_id"], instance, where);
  assert.equal(task.metadata["runtime.kind"], "host", where);
  assert.equal(task.metadata["runtime.provider"], "adapter-command", where);
}

describe("runtime/v1: the card and every task", () => {
  let bridge: RpcBridge;
  let server: HttpServer;
  before(async () => {
    bridge = startBridge();
    server = await startHttp();
    await bridge.ready();
  });
  after(async () => {
    await bridge?.close();
    await server?.close();
  });

  it("stdio: the card's params follow the rules; 0.3 and 1.0 tasks carry the runtime keys", async () => {
    const card = await bridge.call("agent/getCard");
    const instance = checkRuntimeParams(card);
    checkIdempotencyParams(card, false);
    const task03 = await bridge.call("message/send", envelopeParams("ok"));
    checkRuntimeKeys(task03, instance, "message/send");
    checkRuntimeKeys(await bridge.call("tasks/get", { id: task03.id }), instance, "tasks/get");
    const task10 = (await bridge.call("SendMessage", paramsV1(envelopeParams("ok")))).task;
    checkRuntimeKeys(task10, instance, "SendMessage");
    checkRuntimeKeys(await bridge.call("GetTask", { id: task10.id }), instance, "GetTask");
    const list = await bridge.call("ListTasks", {});
    for (const task of list.tasks) checkRuntimeKeys(task, instance, "ListTasks");
  });

  it("HTTP: the card, and tasks of JSON-RPC (both families), HTTP+JSON and streams", async () => {
    const card = (await server.fetch("/.well-known/agent-card.json")).body;
    const instance = checkRuntimeParams(card);
    checkIdempotencyParams(card, false);
    checkRuntimeKeys(await server.call("message/send", echoParams("a")), instance, "message/send");
    const task = (await server.call("SendMessage", paramsV1(echoParams("b")))).task;
    checkRuntimeKeys(task, instance, "SendMessage");
    const rest = await server.fetch(`/a2a/rest/tasks/${task.id}`);
    checkRuntimeKeys(rest.body, instance, "REST GetTask");
    const stream = await server.stream("/a2a/rest/message:stream", { method: "POST", body: paramsV1(echoParams("c")) });
    const first = await stream.next();
    checkRuntimeKeys(first?.data.task, instance, "a stream's Task");
    await stream.rest();
  });
});

describe("runtime/v1: the instance id", () => {
  it("is made at a state dir's first start and kept there; another --instance, or one not a UUID v4/v7, exits 2", async () => {
    const dir = tempDir("instance");
    const first = startBridge({ args: ["--state-dir", dir] });
    const id = checkRuntimeParams(await first.ready());
    await first.close();
    const again = startBridge({ args: ["--state-dir", dir] });
    assert.equal(checkRuntimeParams(await again.ready()), id);
    await again.close();
    const same = startBridge({ args: ["--state-dir", dir, "--instance", id] });
    assert.equal(checkRuntimeParams(await same.ready()), id);
    await same.close();
    const other = await runCli(["serve", "--stdio", "--state-dir", dir, "--instance", randomUUID()], { input: "" });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /differs from the instance id/);
    for (const bad of ["my-id", "00000000-0000-1000-8000-000000000000"]) {
      const refused = await runCli(["serve", "--stdio", "--instance", bad], { input: "" });
      assert.equal(refused.code, 2, bad);
      assert.match(refused.stderr, /expected a UUID of version 4 or 7/);
    }
  });
});

describe("--require-extensions", () => {
  let server: HttpServer;
  let bridge: RpcBridge;
  before(async () => {
    server = await startHttp(["--require-extensions"]);
    bridge = startBridge({ args: ["--require-extensions"] });
    await bridge.ready();
  });
  after(async () => {
    await server?.close();
    await bridge?.close();
  });
  const runtimeOnly = { "A2A-Extensions": RUNTIME_URI };

  it("HTTP: a send without both is -32008 and starts nothing; with them it runs; GetTask needs RUNTIME", async () => {
    for (const headers of [{}, runtimeOnly, { "A2A-Extensions": IDEMPOTENCY_URI }]) {
      const refused = await server.rpc("SendMessage", paramsV1(envelopeParams("ok")), headers);
      assert.equal(refused.error.code, -32008, JSON.stringify(refused));
      const info = refused.error.data.find((d: Wire) => d.reason === "EXTENSION_SUPPORT_REQUIRED");
      assert.equal(info.domain, "a2a-protocol.org");
      const missing = info.metadata.missing_extensions.split(",");
      assert.ok(missing.length >= 1 && missing.every((uri: string) => BOTH.includes(uri)), JSON.stringify(info));
    }
    const rest = await server.fetch("/a2a/rest/message:send", { method: "POST", body: paramsV1(echoParams("x")) });
    assert.equal(rest.status, 400);
    assert.equal(rest.body.error.status, "FAILED_PRECONDITION");
    assert.equal(rest.body.error.details[0].reason, "EXTENSION_SUPPORT_REQUIRED");
    const none = await server.call("ListTasks", {}, runtimeOnly);
    assert.equal(none.totalSize, 0, "nothing was started");
    const both = { "A2A-Extensions": BOTH.join(", ") };
    const params = paramsV1(envelopeParams("ok"));
    (params.message as Wire).messageId = randomUUID();
    const ran = await server.call("SendMessage", params, both);
    assert.equal(ran.task.status.state, "TASK_STATE_COMPLETED");
    const get = await server.rpc("GetTask", { id: ran.task.id });
    assert.equal(get.error.code, -32008);
    assert.equal(get.error.data[0].metadata.missing_extensions, RUNTIME_URI);
    assert.equal((await server.call("GetTask", { id: ran.task.id }, runtimeOnly)).id, ran.task.id);
    const restGet = await server.fetch(`/a2a/rest/tasks/${ran.task.id}`);
    assert.equal(restGet.status, 400);
  });

  it("HTTP: the card, /healthz need nothing, and the card declares both required", async () => {
    const card = await server.fetch("/.well-known/agent-card.json", { noAuth: true });
    assert.equal(card.status, 200);
    checkIdempotencyParams(card.body, true);
    assert.equal((await server.fetch("/healthz", { noAuth: true })).status, 200);
  });

  it("stdio: 0.3 and 1.0 sends without both are -32008; the card needs nothing", async () => {
    const card = await bridge.call("agent/getCard");
    checkIdempotencyParams(card, true);
    const refused = await bridge.callError("message/send", echoParams("x"));
    assert.equal(refused.code, -32008);
    assert.equal((refused.data as Wire).missing_extensions, BOTH.join(","));
    const ran = await bridge.call("message/send", echoParams("y", { extensions: BOTH }));
    assert.equal(ran.status.state, "completed");
    const list = await bridge.call("tasks/list", {
      metadata: { "a2a-service-parameters": { "A2A-Extensions": RUNTIME_URI } },
    });
    assert.equal(list.totalSize, 1, "only the send with both extensions ran");
  });
});

describe("event numbers (CONTRACT 9.4)", () => {
  let server: HttpServer;
  before(async () => {
    // A flood that goes on until it is canceled: every resubscription is made while output still pours in, however
    // slowly this machine runs the test.
    server = await startHttp([], { FIXTURE_BYTES: "Infinity" });
  });
  after(async () => {
    await server?.close();
  });

  /** True for the `event: error` that ends a stream whose client fell too far behind (CONTRACT 8.4), REST or JSON-RPC. */
  function slowConsumerEnd(event: SseEvent): boolean {
    const error = event.data?.error;
    return event.event === "error" && (error?.details ?? error?.data)?.[0]?.reason === "SLOW_CONSUMER";
  }

  /**
   * Reads a 1.0 stream's Task and then up to `count` events, and checks their ids: the Task's n, then n+1, n+2...
   * Only a SLOW_CONSUMER end stops it early: a loaded machine can leave this test's reader too far behind the flood,
   * and such a client subscribes again (CONTRACT 8.4). The last id, and how many events after the Task it read.
   */
  async function checkIds(
    events: () => Promise<SseEvent | undefined>,
    count: number,
  ): Promise<{ last: number; read: number }> {
    const first = await events();
    assert.ok(first?.data?.task, `a stream starts with the Task: ${JSON.stringify(first)?.slice(0, 300)}`);
    let last = Number(first.id);
    assert.ok(Number.isSafeInteger(last) && last >= 1, `the Task carries a number: ${first.id}`);
    for (let read = 0; read < count; read++) {
      const event = await events();
      if (event && slowConsumerEnd(event)) return { last, read };
      if (event === undefined || event.event !== undefined)
        assert.fail(`the stream goes on: ${JSON.stringify(event)?.slice(0, 300)}`);
      assert.equal(Number(event.id), last + 1, "no gap and no repeat after the Task");
      last += 1;
    }
    return { last, read: count };
  }

  it("every event of a 1.0 stream has its number; resubscribing mid-flood never misses or repeats one", async () => {
    const keep = () => true;
    const stream = await server.stream(
      "/a2a/rest/message:stream",
      { method: "POST", body: paramsV1(envelopeParams("flood", { envelope: { timeout_seconds: 900 } })) },
      keep,
    );
    let first: SseEvent | undefined;
    let seen = (
      await checkIds(async () => {
        const event = await stream.next();
        first ??= event;
        return event;
      }, 200)
    ).last;
    stream.destroy();
    const taskId = first?.data.task.id;
    assert.equal(first?.id, "1", "the Task holds the submitted status: event 1");
    let slowEnds = 0;
    for (let round = 0; round < 8; round++) {
      for (const path of [`/a2a/rest/tasks/${taskId}:subscribe`, "/a2a/jsonrpc"]) {
        const rpc = path === "/a2a/jsonrpc";
        // 150 events on each path in each round, through as many subscriptions as SLOW_CONSUMER ends call for.
        for (let read = 0; read < 150; ) {
          const reader = await server.stream(path, {
            method: "POST",
            body: rpc ? { jsonrpc: "2.0", id: round, method: "SubscribeToTask", params: { id: taskId } } : undefined,
          });
          // The flood ends only when canceled below, so every subscription is a stream (an ended task is -32004).
          assert.equal(reader.status, 200, `round ${round}, ${path}: ${reader.status}`);
          assert.match(String(reader.headers["content-type"]), /^text\/event-stream/, `round ${round}, ${path}`);
          const next = async () => {
            const event = await reader.next();
            return event && rpc && event.event === undefined ? { ...event, data: event.data?.result } : event;
          };
          const got = await checkIds(next, 150 - read);
          assert.ok(got.last >= seen, "numbers only grow across subscriptions");
          seen = got.last;
          read += got.read;
          reader.destroy();
          if (read < 150) slowEnds += 1;
          assert.ok(slowEnds <= 64, "a reader too far behind again and again: the flood outruns every subscription");
        }
      }
    }
    const canceled = await server.call("CancelTask", { id: taskId });
    assert.equal(canceled.status.state, "TASK_STATE_CANCELED");
  });

  it("stdio streams carry no numbers; 0.3 SSE streams have no id lines", async () => {
    const stream = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 1, method: "message/stream", params: envelopeParams("ok") },
    });
    const events = [await stream.next(), ...(await stream.rest())];
    assert.ok(events.length >= 2);
    assert.ok(events.every((event) => event?.id === undefined));
  });
});
