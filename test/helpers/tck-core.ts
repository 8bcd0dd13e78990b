// The A2A TCK's core compatibility checks (a2aproject/a2a-tck 1.0-dev, tests/compatibility/core_operations/ and
// the STREAM-* checks of jsonrpc/test_sse_streaming.py), ported to our fixtures and run on one HTTP binding; each
// test is named by the TCK requirement it proves. The TCK's SUT answers a follow-up message on a task; ours takes
// further messages on a task only as answers to its prompt (CONTRACT 7.1), so the multi-turn checks answer prompts.
import assert from "node:assert/strict";
import { it } from "node:test";
import { assertA2a } from "./a2a-schema.js";
import { send10 } from "./http-server.js";
import { answerOf, completedTask, promptedTask, stateOf, type TckBinding, TERMINAL } from "./tck-binding.js";
import type { Wire } from "./wire.js";

const textsOf = (history: Wire[] | undefined): string[] =>
  (history ?? []).map((message) => message.parts.map((part: Wire) => part.text).join(""));

/** Every StreamResponse of an SSE stream until it ends. */
async function items(binding: TckBinding, reader: Awaited<ReturnType<TckBinding["stream"]>>): Promise<Wire[]> {
  assert.ok("response" in reader, `a stream, not an error: ${"response" in reader ? "" : JSON.stringify(reader)}`);
  return (await reader.rest()).map((event) => binding.item(event.data));
}

export function tckCoreChecks(binding: () => TckBinding): void {
  it("CORE-SEND-001: SendMessage returns a Task that validates as a SendMessageResponse", async () => {
    const sent = await binding().send(send10("Hello from TCK"));
    assert.ok(sent.ok, JSON.stringify(sent));
    assertA2a("Send Message Response", sent.result);
    assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
  });

  it("CORE-SEND-002: a message (not an answer) to an ended task is UnsupportedOperationError; to a running one too", async () => {
    const b = binding();
    const task = await completedTask(b);
    const follow = await b.send(send10("Follow-up to terminal task", { taskId: task.id }));
    assert.equal(follow.code, b.name === "jsonrpc" ? -32004 : 400, JSON.stringify(follow));
    assert.equal(follow.reason, "UNSUPPORTED_OPERATION");
    const { task: running } = await promptedTask(b);
    const chat = await b.send(send10("not an answer", { taskId: running.id, contextId: running.contextId }));
    assert.equal(chat.reason, "UNSUPPORTED_OPERATION", "CONTRACT 7.1: a task takes further messages only as answers");
    await b.cancel(running.id);
  });

  it("CORE-SEND-003: a part of a media type we do not take is ContentTypeNotSupportedError, with its pointer", async () => {
    // The TCK runs this requirement without an expected error (it would accept a success); A2A 1.0 §3.1.1 says
    // "MUST result in ContentTypeNotSupportedError", and we follow the spec's text. REST: 400 (CONTRACT 3.4).
    const b = binding();
    const answer = await b.send({
      message: {
        messageId: "tck-send-003",
        role: "ROLE_USER",
        parts: [{ raw: "dGNr", mediaType: "application/x-unsupported-tck-type" }],
      },
    });
    assert.equal(answer.code, b.name === "jsonrpc" ? -32005 : 400, JSON.stringify(answer));
    assert.equal(answer.reason, "CONTENT_TYPE_NOT_SUPPORTED");
    if (b.name === "http_json") assert.equal(answer.status, "INVALID_ARGUMENT");
    assert.deepEqual(answer.fields, ["/message/parts/0"]);
    const html = await b.send({
      message: { messageId: "tck-send-003b", role: "ROLE_USER", parts: [{ text: "<b>", mediaType: "text/html" }] },
    });
    assert.equal(html.reason, "CONTENT_TYPE_NOT_SUPPORTED");
    const none = await b.send({ message: { messageId: "tck-send-003c", role: "ROLE_USER", parts: [] } });
    assert.equal(none.code, b.name === "jsonrpc" ? -32602 : 400, "a message with no part is invalid params");
    assert.notEqual(none.reason, "CONTENT_TYPE_NOT_SUPPORTED");
  });

  it("CORE-MULTI-004: a taskId that names no task is TaskNotFoundError, for a message and for an answer", async () => {
    const b = binding();
    const missing = await b.send(send10("Message to invalid task", { taskId: "tck-nonexistent-multi-004" }));
    assert.equal(missing.code, b.name === "jsonrpc" ? -32001 : 404, JSON.stringify(missing));
    assert.equal(missing.reason, "TASK_NOT_FOUND");
    const answer = await b.send(
      answerOf({ id: "tck-nonexistent", contextId: "c" }, "8a6c5f4e-1b2d-4c3e-9f00-aabbccddeeff", "y"),
    );
    assert.equal(answer.reason, "TASK_NOT_FOUND");
  });

  it("CORE-MULTI-005: an answer with taskId and no contextId takes the task's context", async () => {
    const b = binding();
    const { task, promptId } = await promptedTask(b);
    const answered = await b.send(answerOf(task, promptId, "y", { contextId: undefined }));
    assert.ok(answered.ok, JSON.stringify(answered));
    assert.equal(answered.result.task.contextId, task.contextId);
    assert.equal(answered.result.task.status.state, "TASK_STATE_COMPLETED");
  });

  it("CORE-MULTI-006: an answer whose contextId is not its task's is refused (context_mismatch)", async () => {
    const b = binding();
    const { task, promptId } = await promptedTask(b);
    const refused = await b.send(answerOf(task, promptId, "y", { contextId: "tck-wrong-context" }));
    assert.equal(refused.ok, false);
    assert.equal(refused.code, b.name === "jsonrpc" ? -32010 : 409);
    assert.equal(refused.metadata?.reason, "context_mismatch");
    await b.cancel(task.id);
  });

  it("CORE-EXECUTION-MODE-001: a blocking answer waits for an ended or an interrupted state", async () => {
    const b = binding();
    const { task, promptId } = await promptedTask(b, "ask-twice");
    const next = await b.send(answerOf(task, promptId, "a"));
    assert.equal(next.result?.task.status.state, "TASK_STATE_INPUT_REQUIRED", "interrupted: the next prompt");
    const nextId = next.result.task.status.message.messageId;
    assert.notEqual(nextId, promptId);
    const done = await b.send(answerOf(task, nextId, "b"));
    assert.equal(done.result?.task.status.state, "TASK_STATE_COMPLETED", "ended");
    const stdout = done.result.task.artifacts.find((a: Wire) => a.artifactId === "stdout");
    assert.match(stdout.parts.map((p: Wire) => p.text).join(""), /answers: a,b\n$/);
  });

  it("CORE-EXECUTION-MODE-002: returnImmediately answers at once, the task still working", async () => {
    const b = binding();
    const started = await b.send(
      send10("non-blocking", {
        envelope: { working_dir: "hang", timeout_seconds: 60 },
        configuration: { returnImmediately: true },
      }),
    );
    assert.ok(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].includes(started.result?.task.status.state));
    const { task, promptId } = await promptedTask(b, "ask-slow");
    const answered = await b.send(answerOf(task, promptId, "y", { configuration: { returnImmediately: true } }));
    assert.equal(answered.result?.task.status.state, "TASK_STATE_WORKING", "the answer was delivered; it goes on");
    for (const id of [started.result.task.id, task.id]) await b.cancel(id);
  });

  it("CORE-HIST-001..006: the answers are kept in history after the request, in order; historyLength keeps the newest", async () => {
    const b = binding();
    const { task, promptId } = await promptedTask(b, "ask-twice");
    const next = await b.send(answerOf(task, promptId, "TCK history message 1"));
    const nextId = next.result.task.status.message.messageId;
    // CORE-HIST-003: historyLength 0 on SendMessage leaves the history out.
    const last = await b.send(answerOf(task, nextId, "TCK history message 2", { configuration: { historyLength: 0 } }));
    assert.equal(last.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(last.result.task.history, undefined, "CORE-HIST-003");
    // CORE-HIST-004/005/006: persisted, in the order exchanged, with the content sent.
    const all = await b.get(task.id, 10);
    assertA2a("Task", all.result);
    assert.deepEqual(textsOf(all.result.history), [
      "tck prerequisite",
      "TCK history message 1",
      "TCK history message 2",
    ]);
    assert.ok(all.result.history.every((m: Wire) => m.role === "ROLE_USER" && m.taskId === task.id));
    // CORE-HIST-002: never more than historyLength, the most recent ones.
    assert.deepEqual(textsOf((await b.get(task.id, 1)).result.history), ["TCK history message 2"]);
    // CORE-HIST-001: historyLength 0 on GetTask leaves it out.
    assert.equal((await b.get(task.id, 0)).result.history, undefined);
  });

  it("CORE-GET-001 / CORE-GET-002: GetTask returns the task; an unknown id is TaskNotFoundError", async () => {
    const b = binding();
    const task = await completedTask(b);
    const got = await b.get(task.id);
    assert.equal(got.result?.id, task.id);
    assertA2a("Task", got.result);
    const missing = await b.get("tck-nonexistent-get-002");
    assert.equal(missing.code, b.name === "jsonrpc" ? -32001 : 404);
    assert.equal(missing.reason, "TASK_NOT_FOUND");
  });

  it("CORE-CANCEL-001..003: CancelTask cancels; an ended task is TaskNotCancelable; an unknown one TaskNotFound", async () => {
    const b = binding();
    const { task } = await promptedTask(b);
    const canceled = await b.cancel(task.id);
    assert.equal(canceled.result?.status.state, "TASK_STATE_CANCELED");
    const again = await b.cancel(task.id);
    assert.equal(again.code, b.name === "jsonrpc" ? -32002 : 400, "A2A 1.0.1 §5.4: 400, not 1.0.0's 409");
    assert.equal(again.reason, "TASK_NOT_CANCELABLE");
    assert.equal((await b.cancel("tck-nonexistent-cancel-003")).reason, "TASK_NOT_FOUND");
  });

  it('CORE-LIST-001..005: ListTasks pages by cursor, newest status first, nextPageToken "" at the end, artifacts only when asked', async () => {
    const b = binding();
    const contextId = `tck-list-${b.name}-${process.pid}`;
    const sent: Wire[] = [];
    for (const text of ["one", "two", "three"]) sent.push((await b.send(send10(text, { contextId }))).result.task);
    const first = await b.list({ contextId, pageSize: 2 });
    assertA2a("List Tasks Response", first.result);
    assert.equal(first.result.tasks.length, 2);
    assert.notEqual(first.result.nextPageToken, "");
    assert.equal(first.result.totalSize, 3);
    const second = await b.list({ contextId, pageSize: 2, pageToken: first.result.nextPageToken });
    assert.equal(second.result.nextPageToken, "", "CORE-LIST-004: the last page's token is empty");
    const tasks = [...first.result.tasks, ...second.result.tasks];
    assert.deepEqual(
      tasks.map((task: Wire) => task.id),
      sent.map((task) => task.id).reverse(),
      "CORE-LIST-003: newest status first, each task once",
    );
    const stamps = tasks.map((task: Wire) => Date.parse(task.status.timestamp));
    assert.deepEqual(
      stamps,
      [...stamps].sort((x, y) => y - x),
    );
    assert.ok(
      tasks.every((task: Wire) => !("artifacts" in task)),
      "CORE-LIST-005: no artifacts by default",
    );
    const full = await b.list({ contextId, pageSize: 100, includeArtifacts: true });
    assert.ok(full.result.tasks.every((task: Wire) => Array.isArray(task.artifacts)));
  });

  it("STREAM-SUB-001 / STREAM-SUB-002: SubscribeToTask starts with the Task and stays open through prompts and answers until the task ends", async () => {
    const b = binding();
    const { task, promptId } = await promptedTask(b, "ask-twice");
    const reader = await b.stream("SubscribeToTask", { id: task.id });
    assert.ok("response" in reader, "a stream");
    const first = b.item((await reader.next())?.data);
    assertA2a("Stream Response", first);
    assert.equal(first.task.status.state, "TASK_STATE_INPUT_REQUIRED", "STREAM-SUB-001: the Task first");
    const next = await b.send(answerOf(task, promptId, "a"));
    const nextId = next.result.task.status.message.messageId;
    await b.send(answerOf(task, nextId, "b"));
    const rest = await items(b, reader);
    for (const item of rest) assertA2a("Stream Response", item);
    const states = rest.map(stateOf).filter((state) => state !== undefined);
    assert.ok(states.includes("TASK_STATE_INPUT_REQUIRED"), `through the second prompt: ${states}`);
    assert.equal(states.at(-1), "TASK_STATE_COMPLETED", "STREAM-SUB-002: the stream ends after the end");
    assert.ok(TERMINAL.includes(stateOf(rest.at(-1)) as string));
  });

  it("STREAM-SUB-003 / STREAM-SUB-004: SubscribeToTask of an ended task is UnsupportedOperation, of none TaskNotFound", async () => {
    const b = binding();
    const task = await completedTask(b);
    const ended = await b.stream("SubscribeToTask", { id: task.id });
    assert.ok(!("response" in ended));
    assert.equal(ended.code, b.name === "jsonrpc" ? -32004 : 400);
    assert.equal(ended.reason, "UNSUPPORTED_OPERATION");
    const missing = await b.stream("SubscribeToTask", { id: "tck-nonexistent-subscribe-001" });
    assert.ok(!("response" in missing));
    assert.equal(missing.code, b.name === "jsonrpc" ? -32001 : 404);
  });

  it("STREAM-ORDER-001 / CORE-STREAM-001 / CORE-STREAM-003: the Task first, states never go back, each event a StreamResponse, the last terminal", async () => {
    const b = binding();
    const reader = await b.stream(
      "SendStreamingMessage",
      send10("TCK stream ordering test", { envelope: { working_dir: "interleave" } }),
    );
    assert.match(String((reader as { headers: Wire }).headers["content-type"]), /^text\/event-stream/);
    const events = await items(b, reader);
    assert.ok("task" in events[0], "CORE-STREAM-003: the stream begins with the Task");
    const order: Record<string, number> = {
      TASK_STATE_SUBMITTED: 0,
      TASK_STATE_WORKING: 1,
      TASK_STATE_INPUT_REQUIRED: 1,
    };
    let highest = -1;
    for (const [index, item] of events.entries()) {
      assertA2a("Stream Response", item);
      const state = stateOf(item);
      if (state === undefined) continue;
      const rank = order[state] ?? 2;
      assert.ok(rank >= highest, `event ${index}: ${state} comes after a later state`);
      highest = rank;
    }
    assert.ok(TERMINAL.includes(stateOf(events.at(-1)) as string));
  });

  it("STREAM-ORDER-002..004: two subscriptions get the same events in the same order; closing one leaves the other", async () => {
    const b = binding();
    const { task, promptId } = await promptedTask(b);
    const [one, two, early] = await Promise.all([
      b.stream("SubscribeToTask", { id: task.id }),
      b.stream("SubscribeToTask", { id: task.id }),
      b.stream("SubscribeToTask", { id: task.id }),
    ]);
    assert.ok("response" in early);
    assert.ok((await early.next())?.data, "STREAM-ORDER-004: the early one got its first event");
    early.destroy();
    await b.send(answerOf(task, promptId, "y"));
    const [a, c] = await Promise.all([items(b, one), items(b, two)]);
    assert.ok(a.length >= 2, "STREAM-ORDER-002: each stream got the events");
    assert.deepEqual(a, c, "STREAM-ORDER-003: the same events, in the same order");
    assert.equal(stateOf(a.at(-1)), "TASK_STATE_COMPLETED", "STREAM-ORDER-004: the others went on to the end");
  });

  it("CARD-EXT-001 / CORE-CAP-003: the extended card needs the token and adds the operator's setup", async () => {
    const b = binding();
    const card = await b.extendedCard();
    assert.ok(card.ok, JSON.stringify(card));
    const { url: _u, preferredTransport: _t, protocolVersion: _v, ...card10 } = card.result;
    assertA2a("Agent Card", card10);
    assert.equal(card.result.capabilities.extendedAgentCard, true);
    const adapter = card.result.capabilities.extensions.find((e: Wire) => e.uri.endsWith("adapter-command/v1"));
    assert.deepEqual(Object.keys(adapter.params.limits).sort(), [
      "max_body_bytes",
      "max_concurrent",
      "max_line_bytes",
      "max_output_bytes",
      "settle_ms",
    ]);
    assert.equal(typeof adapter.params.workspace, "string");
    assert.equal(adapter.params.state_dir, false);
    assert.match(adapter.params.containment, /^(cgroup|marker|group)$/);
    const path = b.name === "jsonrpc" ? "/a2a/jsonrpc" : "/a2a/rest/extendedAgentCard";
    const anonymous = await b.server.fetch(path, {
      method: b.name === "jsonrpc" ? "POST" : "GET",
      noAuth: true,
      ...(b.name === "jsonrpc" ? { body: { jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} } } : {}),
    });
    assert.equal(anonymous.status, 401, "without the token: 401");
  });

  it("DM-SERIAL-001 / DM-SERIAL-003 / DM-SERIAL-005: camelCase names, UTC timestamps, unknown fields ignored", async () => {
    const b = binding();
    const sent = await b.send({
      message: { messageId: "tck-dm", role: "ROLE_USER", parts: [{ text: "dm" }], tckUnknownField: "ignored" },
      tckExtraParam: 42,
    });
    assert.ok(sent.ok, JSON.stringify(sent));
    // The TCK looks for snake_case keys everywhere; keys inside `metadata` (a Struct) are the sender's own, and
    // CONTRACT 5.4 names ours there (total_bytes...), so metadata objects are not searched.
    const snake: string[] = [];
    const stamps: string[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) {
        for (const item of value) walk(item);
        return;
      }
      if (value === null || typeof value !== "object") return;
      for (const [key, inner] of Object.entries(value)) {
        if (/^[a-z]+(_[a-z]+)+$/.test(key)) snake.push(key);
        if (key === "timestamp") stamps.push(String(inner));
        if (key !== "metadata") walk(inner);
      }
    };
    walk(sent.result);
    assert.deepEqual(snake, []);
    assert.ok(stamps.length > 0 && stamps.every((stamp) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(stamp)));
  });
}
