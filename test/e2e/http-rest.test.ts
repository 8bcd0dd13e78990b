// The HTTP+JSON binding under /a2a/rest over real sockets (CONTRACT 8.2, 8.3, 8.4): every route, ListTasks paging,
// SSE framing, and every error as a google.rpc.Status with its details and HTTP status.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { assertV1 } from "../helpers/a2a-schema.js";
import { assertStatus, HITL_URI, type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import type { Wire } from "../helpers/wire.js";

describe("serve --http: HTTP+JSON", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server?.close();
  });

  const send = (body: unknown, headers: Record<string, string> = {}) =>
    server.fetch("/a2a/rest/message:send", { method: "POST", body, headers });
  const hanging = async () =>
    (await send(send10("run", { envelope: { working_dir: "pid-hang" }, configuration: { returnImmediately: true } })))
      .body.task;

  it("message:send: 200 with { task }, application/json, or application/a2a+json when Accept asks for it", async () => {
    const answer = await send(send10("hello"));
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers["content-type"], "application/json");
    assertV1("Send Message Response", answer.body);
    assert.equal(answer.body.task.status.state, "TASK_STATE_COMPLETED");
    const a2a = await send(send10("hello"), { Accept: "application/a2a+json, application/json" });
    assert.equal(a2a.headers["content-type"], "application/a2a+json");
    assertV1("Send Message Response", a2a.body);
    const snake = await send({ message: { message_id: "m", role: "ROLE_USER", parts: [{ text: "s" }] }, unknown: 1 });
    assert.equal(snake.status, 200, "snake_case names and unknown fields are taken");
  });

  it("GET tasks/{id}: the Task, historyLength honoured; an unknown id is 404 NOT_FOUND with TASK_NOT_FOUND", async () => {
    const { task } = (await send(send10("kept"))).body;
    const got = await server.fetch(`/a2a/rest/tasks/${task.id}`);
    assert.equal(got.status, 200);
    assertV1("Task", got.body);
    assert.equal(got.body.history.length, 1);
    assert.equal(got.body.artifacts[0].parts[0].text, "kept\n");
    const bare = await server.fetch(`/a2a/rest/tasks/${task.id}?historyLength=0`);
    assert.equal(bare.body.history, undefined);
    const info = assertStatus(await server.fetch("/a2a/rest/tasks/no-such-task"), 404, "NOT_FOUND");
    assert.equal(info.reason, "TASK_NOT_FOUND");
    assert.equal(info.domain, "a2a-protocol.org");
    assertStatus(await server.fetch(`/a2a/rest/tasks/${task.id}?historyLength=abc`), 400, "INVALID_ARGUMENT");
  });

  it("GET tasks: filters and stable pages (pageSize, pageToken, totalSize), artifacts only when asked", async () => {
    const contextId = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await send(send10(`page ${i}`, { contextId }))).body.task.id);
    const seen: string[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await server.fetch(
        `/a2a/rest/tasks?contextId=${contextId}&pageSize=2${token ? `&pageToken=${encodeURIComponent(token)}` : ""}`,
      );
      assert.equal(page.status, 200, page.text);
      assertV1("List Tasks Response", page.body);
      assert.equal(page.body.pageSize, 2);
      assert.equal(page.body.totalSize, pages === 0 ? 5 : 6, "every match, the newer one included");
      for (const task of page.body.tasks as Wire[]) {
        assert.equal(task.artifacts, undefined);
        seen.push(task.id);
      }
      // A task added meanwhile (newer, so before the pages) does not shift them.
      if (pages === 0) await send(send10("newer", { contextId }));
      token = page.body.nextPageToken;
      pages += 1;
    } while (token !== "" && pages < 10);
    assert.equal(pages, 3);
    assert.deepEqual([...seen].sort(), [...ids].sort());
    assert.deepEqual(seen, [...ids].reverse(), "newest first");
    const withArtifacts = await server.fetch(
      `/a2a/rest/tasks?contextId=${contextId}&includeArtifacts=true&status=TASK_STATE_COMPLETED`,
    );
    assert.equal(withArtifacts.body.tasks.length, 6);
    assert.ok(withArtifacts.body.tasks.every((task: Wire) => task.artifacts.length === 1));
    assertV1("List Tasks Response", withArtifacts.body);
    const snake = await server.fetch(`/a2a/rest/tasks?context_id=${contextId}&page_size=1`);
    assert.equal(snake.body.tasks.length, 1);
    for (const query of [
      "pageSize=0",
      "pageSize=101",
      "pageToken=garbage",
      "status=RUNNING",
      "statusTimestampAfter=yesterday",
    ]) {
      const info = assertStatus(await server.fetch(`/a2a/rest/tasks?${query}`), 400, "INVALID_ARGUMENT");
      assert.equal(info.reason, "INVALID_PARAMS", query);
    }
    // A state in the 0.3 spelling, or a letter off, is told its 1.0 name; a word that is no state lists them all.
    for (const [status, named] of [
      ["canceled", "TASK_STATE_CANCELED"],
      ["input_required", "TASK_STATE_INPUT_REQUIRED"],
      ["TASK_STATE_COMPLETE", "TASK_STATE_COMPLETED"],
    ]) {
      const refused = await server.fetch(`/a2a/rest/tasks?status=${status}`);
      assert.equal(refused.status, 400, status);
      assert.equal(
        refused.body.error.message,
        `Invalid params: expected a task state, found "${status}"; the name is "${named}" at /status`,
      );
    }
    const unknown = await server.fetch("/a2a/rest/tasks?status=RUNNING");
    assert.match(unknown.body.error.message, /found "RUNNING": one of "TASK_STATE_SUBMITTED", .*"TASK_STATE_CANCELED"/);
  });

  it("POST tasks/{id}:cancel: the Task, canceled; again: 400 FAILED_PRECONDITION with TASK_NOT_CANCELABLE (A2A 1.0.1 §5.4)", async () => {
    const task = await hanging();
    const canceled = await server.fetch(`/a2a/rest/tasks/${task.id}:cancel`, { method: "POST" });
    assert.equal(canceled.status, 200, canceled.text);
    assertV1("Task", canceled.body);
    assert.equal(canceled.body.status.state, "TASK_STATE_CANCELED");
    const again = await server.fetch(`/a2a/rest/tasks/${task.id}:cancel`, { method: "POST", body: {} });
    const info = assertStatus(again, 400, "FAILED_PRECONDITION");
    assert.equal(info.reason, "TASK_NOT_CANCELABLE");
    assertStatus(await server.fetch("/a2a/rest/tasks/missing:cancel", { method: "POST" }), 404, "NOT_FOUND");
  });

  it("message:stream: SSE of StreamResponses, the task first, the stream closing after the end", async () => {
    const stream = await server.stream("/a2a/rest/message:stream", {
      method: "POST",
      body: send10("x", { envelope: { working_dir: "ok" } }),
    });
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers["content-type"]), /^text\/event-stream/);
    assert.equal(stream.headers["cache-control"], "no-cache");
    const events = await stream.rest();
    for (const event of events) {
      assert.equal(event.event, undefined);
      assertV1("Stream Response", event.data);
    }
    assert.ok(events[0]?.data.task);
    assert.equal(events.at(-1)?.data.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    const stdout = events
      .filter((event) => event.data.artifactUpdate)
      .map((event) => event.data.artifactUpdate.artifact.parts[0].text)
      .join("");
    assert.equal(stdout, "ok\n");
  });

  it("GET and POST tasks/{id}:subscribe follow a running task; an ended one is 400 UNSUPPORTED_OPERATION", async () => {
    const task = await hanging();
    const byGet = await server.stream(`/a2a/rest/tasks/${task.id}:subscribe`);
    const byPost = await server.stream(`/a2a/rest/tasks/${task.id}:subscribe`, { method: "POST", body: {} });
    for (const stream of [byGet, byPost]) {
      assert.equal(stream.status, 200);
      const first = await stream.next();
      assertV1("Stream Response", first?.data);
      assert.equal(first?.data.task.id, task.id);
    }
    await server.fetch(`/a2a/rest/tasks/${task.id}:cancel`, { method: "POST" });
    for (const stream of [byGet, byPost]) {
      const events = await stream.rest();
      for (const event of events) assertV1("Stream Response", event.data);
      assert.equal(events.at(-1)?.data.statusUpdate.status.state, "TASK_STATE_CANCELED");
    }
    const ended = await server.fetch(`/a2a/rest/tasks/${task.id}:subscribe`);
    assert.equal(assertStatus(ended, 400, "FAILED_PRECONDITION").reason, "UNSUPPORTED_OPERATION");
    assertStatus(await server.fetch("/a2a/rest/tasks/missing:subscribe"), 404, "NOT_FOUND");
  });

  it("push notification configs (test/e2e/push.test.ts has the rest) and the extended card", async () => {
    const task = (await send(send10("p"))).body.task;
    const configs = `/a2a/rest/tasks/${task.id}/pushNotificationConfigs`;
    assertStatus(await server.fetch(configs, { method: "POST", body: {} }), 400, "INVALID_ARGUMENT");
    assert.deepEqual((await server.fetch(configs)).body, { configs: [], nextPageToken: "" });
    assertStatus(await server.fetch(`${configs}/c1`), 404, "NOT_FOUND");
    assert.equal((await server.fetch(`${configs}/c1`, { method: "DELETE" })).status, 200);
    const card = await server.fetch("/a2a/rest/extendedAgentCard");
    assert.equal(card.status, 200, card.text);
    assert.equal(card.body.capabilities.extendedAgentCard, true);
  });

  it("bad requests: a rejected envelope (400 with field violations), a body that is not JSON, a wrong version", async () => {
    const rejected = await send(send10("x", { envelope: { working_dir: "/etc", mode: "Plan" } }));
    const info = assertStatus(rejected, 400, "INVALID_ARGUMENT");
    assert.equal(info.reason, "ADAPTER_COMMAND_REJECTED");
    assert.equal(info.domain, "agentic-sandbox.aiwg.io");
    const violations = rejected.body.error.details[1];
    assert.equal(violations["@type"], "type.googleapis.com/google.rpc.BadRequest");
    assert.ok(violations.fieldViolations.some((v: Wire) => v.field.endsWith("/mode") && v.reason === "invalid_value"));
    assertStatus(await send("{broken"), 400, "INVALID_ARGUMENT");
    assertStatus(await send(send10("x", { contextId: 5 as never })), 400, "INVALID_ARGUMENT");
    for (const [headers, path] of [
      [{ "A2A-Version": "0.3" }, "/a2a/rest/tasks"],
      [{}, "/a2a/rest/tasks?A2A-Version=99.0"],
    ] as const) {
      const answer = await server.fetch(path, { headers });
      assert.equal(assertStatus(answer, 400, "FAILED_PRECONDITION").reason, "VERSION_NOT_SUPPORTED");
    }
    assert.equal((await server.fetch("/a2a/rest/tasks", { headers: { "A2A-Version": "1.0" } })).status, 200);
  });

  it("A2A-Extensions is echoed in the answer's header and on the task", async () => {
    const answer = await send(send10("e"), { "A2A-Extensions": HITL_URI });
    assert.equal(answer.headers["a2a-extensions"], HITL_URI);
    assert.equal(answer.body.task.metadata["a2a-service-parameters"]["A2A-Extensions"], HITL_URI);
  });
});

describe("serve --http: a full queue", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--max-concurrent", "1"]);
  });
  after(async () => {
    await server?.close();
  });

  it("the next task after 1000 waiting: REST 503 UNAVAILABLE with Retry-After and QUEUE_FULL; JSON-RPC -32000", async () => {
    const later = send10("wait", { envelope: { working_dir: "pid-hang" }, configuration: { returnImmediately: true } });
    const batch = Array.from({ length: 1000 }, (_, i) => ({
      jsonrpc: "2.0",
      id: i,
      method: "SendMessage",
      params: later,
    }));
    // One running, then 1000 waiting.
    assert.equal((await server.call("SendMessage", later)).task.status.state, "TASK_STATE_SUBMITTED");
    const queued = await server.fetch("/a2a/jsonrpc", { method: "POST", body: batch, timeoutMs: 60_000 });
    assert.equal(queued.status, 200);
    assert.ok(
      (queued.body as Wire[]).every((entry) => entry.result?.task),
      "all 1000 queued",
    );
    const answer = await server.fetch("/a2a/rest/message:send", { method: "POST", body: later });
    const info = assertStatus(answer, 503, "UNAVAILABLE");
    assert.equal(info.reason, "QUEUE_FULL");
    assert.match(String(answer.headers["retry-after"]), /^\d+$/);
    const rpc = await server.rpc("SendMessage", later);
    assert.equal(rpc.error.code, -32000);
    assert.equal(rpc.error.data[0].reason, "QUEUE_FULL");
  });
});
