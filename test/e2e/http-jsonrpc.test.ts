// POST /a2a/jsonrpc over real sockets (CONTRACT 8.2, 8.4, 7): both method families, batches, framing errors,
// service parameters as headers, and streams as SSE events that each carry the request's id.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertV1 } from "../helpers/a2a-schema.js";
import { echoParams, envelopeParams } from "../helpers/envelopes.js";
import { HITL_URI, type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import type { Wire } from "../helpers/wire.js";

const ADAPTER_ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

describe("serve --http: JSON-RPC", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server?.close();
  });

  const post = (body: unknown, headers: Record<string, string> = {}, path = "/a2a/jsonrpc") =>
    server.fetch(path, { method: "POST", body, headers });

  it("1.0 methods answer with 1.0 shapes: SendMessage, GetTask, ListTasks, CancelTask", async () => {
    const sent = await server.call("SendMessage", send10("hello"));
    assertV1("Send Message Response", sent);
    assert.equal(sent.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(sent.task.artifacts[0].parts[0].text, "hello\n");
    const got = await server.call("GetTask", { id: sent.task.id, historyLength: 0 });
    assertV1("Task", got);
    assert.equal(got.history, undefined);
    const listed = await server.call("ListTasks", { pageSize: 1 });
    assertV1("List Tasks Response", listed);
    assert.equal(listed.pageSize, 1);
    assert.equal(listed.tasks.length, 1);
    const running = await server.call(
      "SendMessage",
      send10("run", { envelope: { working_dir: "pid-hang" }, configuration: { returnImmediately: true } }),
    );
    const canceled = await server.call("CancelTask", { id: running.task.id });
    assertV1("Task", canceled);
    assert.equal(canceled.status.state, "TASK_STATE_CANCELED");
  });

  it("0.3 methods answer with 0.3 shapes on the same endpoint, and at /a2a/jsonrpc/ too", async () => {
    for (const path of ["/a2a/jsonrpc", "/a2a/jsonrpc/"]) {
      const answer = await post({ jsonrpc: "2.0", id: 1, method: "message/send", params: echoParams("old") }, {}, path);
      assert.equal(answer.status, 200);
      const task = answer.body.result;
      assert.equal(task.kind, "task");
      assert.equal(task.status.state, "completed");
      const got = await post({ jsonrpc: "2.0", id: 2, method: "tasks/get", params: { id: task.id } }, {}, path);
      assert.equal(got.body.result.kind, "task");
    }
    const card = await server.call("agent/getCard", {});
    assert.equal(card.protocolVersion, "0.3.0");
  });

  it("errors carry their details at HTTP 200: unknown task, bad params, rejected envelope, push, extended card", async () => {
    const notFound = await server.rpc("GetTask", { id: "no-such-task" });
    assert.equal(notFound.error.code, -32001);
    assert.deepEqual(
      { ...notFound.error.data[0], metadata: undefined },
      { "@type": ADAPTER_ERROR_INFO, reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: undefined },
    );
    const badPage = await server.rpc("ListTasks", { pageSize: 500 });
    assert.equal(badPage.error.code, -32602);
    assert.equal(badPage.error.data[1]["@type"], "type.googleapis.com/google.rpc.BadRequest");
    assert.equal(badPage.error.data[1].fieldViolations[0].field, "/pageSize");
    const rejected = await server.rpc("SendMessage", send10("x", { envelope: { working_dir: "../outside" } }));
    assert.equal(rejected.error.code, -32602);
    assert.match(rejected.error.message, /^adapter-command\/v1 rejected:/);
    assert.equal(rejected.error.data[0].reason, "ADAPTER_COMMAND_REJECTED");
    assert.equal(rejected.error.data[0].domain, "agentic-sandbox.aiwg.io");
    assert.ok(rejected.error.data[1].fieldViolations.length > 0);
    assert.equal((await server.rpc("CreateTaskPushNotificationConfig", {})).error.code, -32602);
    const extended = await server.call("GetExtendedAgentCard", {});
    assert.equal(extended.capabilities.extendedAgentCard, true);
    const old = await server.rpc("tasks/get", { id: "no-such-task" });
    assert.equal(old.error.code, -32001);
    assert.equal(old.error.data.task_id, "no-such-task");
  });

  it("framing: bad JSON -32700 (id null), not a request -32600, unknown method -32601, too deep -32600", async () => {
    const parse = await server.fetch("/a2a/jsonrpc", { method: "POST", body: "{not json" });
    assert.equal(parse.status, 200);
    assert.equal(parse.body.error.code, -32700);
    assert.equal(parse.body.id, null);
    assert.equal((await post({ jsonrpc: "1.0", id: 3, method: "GetTask" })).body.error.code, -32600);
    const unknown = await post({ jsonrpc: "2.0", id: 4, method: "NoSuchMethod", params: {} });
    assert.equal(unknown.body.error.code, -32601);
    assert.equal(unknown.body.id, 4);
    const deep = `{"jsonrpc":"2.0","id":5,"method":"GetTask","params":${"[".repeat(200)}${"]".repeat(200)}}`;
    assert.equal((await server.fetch("/a2a/jsonrpc", { method: "POST", body: deep })).body.error.code, -32600);
    const noId = await post({ jsonrpc: "2.0", method: "SendStreamingMessage", params: send10("x") });
    assert.equal(noId.body.error.code, -32600, "a stream needs an id to answer with");
  });

  it("a batch: each call answered with its own id, a streaming call refused on its own, notifications unanswered", async () => {
    const answer = await post([
      { jsonrpc: "2.0", id: "a", method: "SendMessage", params: send10("in a batch") },
      { jsonrpc: "2.0", id: "b", method: "SendStreamingMessage", params: send10("not here") },
      { jsonrpc: "2.0", id: "c", method: "tasks/list", params: {} },
      { jsonrpc: "2.0", method: "ListTasks", params: {} },
      { jsonrpc: "2.0", id: "d", method: "message/stream", params: echoParams("nor here") },
      { jsonrpc: "2.0", id: "e", method: "GetTask", params: { id: "missing" } },
    ]);
    assert.equal(answer.status, 200);
    const byId = new Map((answer.body as Wire[]).map((entry) => [entry.id, entry]));
    assert.equal(byId.size, 5);
    assert.equal(byId.get("a").result.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(byId.get("b").error.code, -32600);
    assert.ok(Array.isArray(byId.get("c").result.tasks));
    assert.equal(byId.get("d").error.code, -32600);
    assert.equal(byId.get("e").error.code, -32001);
    const empty = await post([]);
    assert.equal(empty.body.error.code, -32600);
    const onlyNotifications = await post([{ jsonrpc: "2.0", method: "ListTasks", params: {} }]);
    assert.equal(onlyNotifications.status, 204);
    assert.equal(onlyNotifications.text, "");
  });

  it("A2A-Version: a header or query parameter; an unknown or contradicting version is -32009", async () => {
    const unknown = await server.rpc("ListTasks", {}, { "A2A-Version": "99.0" });
    assert.equal(unknown.error.code, -32009);
    assert.equal(unknown.error.data[0].reason, "VERSION_NOT_SUPPORTED");
    const contradicting = await server.rpc("tasks/list", {}, { "A2A-Version": "1.0" });
    assert.equal(contradicting.error.code, -32009);
    assert.ok(!Array.isArray(contradicting.error.data), "0.3 shapes for a 0.3 method");
    assert.equal((await server.rpc("ListTasks", {}, { "A2A-Version": "1.0" })).error, undefined);
    assert.equal((await server.rpc("tasks/list", {}, { "A2A-Version": "0.3" })).error, undefined);
    const query = await server.fetch("/a2a/jsonrpc?A2A-Version=99.0", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} },
    });
    assert.equal(query.body.error.code, -32009);
  });

  it("A2A-Extensions activates hitl-prompt/v1 and is echoed in the answer's header and the task", async () => {
    for (const name of ["A2A-Extensions", "X-A2A-Extensions"]) {
      const answer = await post(
        { jsonrpc: "2.0", id: 1, method: "SendMessage", params: send10("hi") },
        { [name]: ` ${HITL_URI.toUpperCase()} , https://unknown.example/ext` },
      );
      assert.equal(answer.headers["a2a-extensions"], HITL_URI, name);
      const metadata = answer.body.result.task.metadata["a2a-service-parameters"];
      assert.equal(metadata["A2A-Extensions"], HITL_URI);
    }
    const none = await post({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} });
    assert.equal(none.headers["a2a-extensions"], undefined);
  });

  it("SendStreamingMessage: SSE, each event {jsonrpc, id, result: StreamResponse}, the task first, closing at the end", async () => {
    const stream = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: {
        jsonrpc: "2.0",
        id: "s1",
        method: "SendStreamingMessage",
        params: send10("x", { envelope: { working_dir: "ok" } }),
      },
    });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
    assert.equal(stream.headers["cache-control"], "no-cache");
    const events = await stream.rest();
    assert.ok(events.length >= 3);
    for (const event of events) {
      assert.equal(event.event, undefined);
      assert.deepEqual(Object.keys(event.data).sort(), ["id", "jsonrpc", "result"]);
      assert.equal(event.data.jsonrpc, "2.0");
      assert.equal(event.data.id, "s1");
      assertV1("Stream Response", event.data.result);
    }
    assert.ok(events[0]?.data.result.task);
    const last = events.at(-1)?.data.result;
    assert.equal(last.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    const text = events
      .filter((event) => event.data.result.artifactUpdate)
      .map((event) => event.data.result.artifactUpdate.artifact.parts[0].text)
      .join("");
    assert.equal(text, "ok\n");
  });

  it("message/stream keeps 0.3 shapes: the 0.3 Task first, then 0.3 events, ending after final: true", async () => {
    const stream = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 9, method: "message/stream", params: envelopeParams("ok") },
    });
    assert.equal(stream.status, 200);
    const events = await stream.rest();
    assert.ok(events.every((event) => event.data.id === 9 && event.data.jsonrpc === "2.0"));
    assert.equal(events[0]?.data.result.kind, "task");
    const kinds = events.slice(1).map((event) => event.data.result.kind);
    assert.ok(
      kinds.every((kind) => kind === "status-update" || kind === "artifact-update"),
      kinds.join(),
    );
    assert.equal(events.at(-1)?.data.result.final, true);
    assert.equal(events.filter((event) => event.data.result.final).length, 1);
  });

  it("SubscribeToTask and tasks/resubscribe follow a running task; an error before the first item is a plain answer", async () => {
    const running = await server.call(
      "SendMessage",
      send10("run", { envelope: { working_dir: "pid-hang" }, configuration: { returnImmediately: true } }),
    );
    const id = running.task.id;
    const v10 = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id } },
    });
    const v03 = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 2, method: "tasks/resubscribe", params: { id } },
    });
    assert.equal((await v10.next())?.data.result.task.id, id);
    assert.equal((await v03.next())?.data.result.kind, "task");
    await server.call("CancelTask", { id });
    const last10 = (await v10.rest()).at(-1)?.data.result;
    assert.equal(last10.statusUpdate.status.state, "TASK_STATE_CANCELED");
    const last03 = (await v03.rest()).at(-1)?.data.result;
    assert.equal(last03.final, true);
    assert.equal(last03.status.state, "canceled");
    const ended = await server.rpc("SubscribeToTask", { id });
    assert.equal(ended.error.code, -32004);
    const unknown = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 3, method: "SubscribeToTask", params: { id: "missing" } },
    });
    assert.match(String(unknown.headers["content-type"]), /^application\/json/);
    assert.equal(unknown.body.error.code, -32001);
  });
});
