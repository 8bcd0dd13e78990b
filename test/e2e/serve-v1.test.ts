// `serve --stdio` answering the A2A 1.0 method names with 1.0 shapes (CONTRACT 7): every method of 7.1, requests in
// camelCase and snake_case, the errors of 7.5 and the version rule of 7.6. Every 1.0 object that comes back is
// validated against the A2A 1.0 JSON Schema and carries no `kind` or `final`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { assertStreamResponse, assertV1, type DefinitionName } from "../helpers/a2a-schema.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { echoParams, envelopeParams } from "../helpers/envelopes.js";
import { allTasks } from "../helpers/list-pages.js";
import { killGroup } from "../helpers/processes.js";
import { A2A_DOMAIN, assertErrorV1, OUR_DOMAIN } from "../helpers/v1-errors.js";
import { closesV1, ENDED_V1, messageV1, paramsV1, withService } from "../helpers/v1-requests.js";
import { artifactText, eventText, type RpcError, type TaskEvent, type Wire } from "../helpers/wire.js";

const interleaveOut = Array.from({ length: 200 }, (_, i) => `out ${i + 1}\n`).join("");
const interleaveErr = Array.from({ length: 200 }, (_, i) => `err ${i + 1}\n`).join("");

describe("serve --stdio: A2A 1.0 methods", () => {
  let bridge: RpcBridge;
  const groups: number[] = [];

  before(async () => {
    bridge = startBridge();
    await bridge.ready();
  });
  after(async () => {
    await bridge.close();
    for (const pgid of groups) killGroup(pgid);
  });

  /** The result of a 1.0 call, checked as the definition `name` (and free of 0.3 keys). */
  async function v1(method: string, params: unknown, name: DefinitionName): Promise<Wire> {
    const response = await bridge.callRaw(method, params);
    assert.equal(response.error, undefined, `${method}: ${JSON.stringify(response.error)}`);
    assertV1(name, response.result, `the result of ${method}`);
    return response.result;
  }

  /** The error of a call that must fail. */
  const fails = (method: string, params?: unknown): Promise<RpcError> => bridge.callError(method, params);

  /** The stream's notifications up to the one that closes it, each checked as a StreamResponse. */
  async function streamOf(taskId: string, subscription?: unknown): Promise<TaskEvent[]> {
    const ends = (event: TaskEvent) =>
      subscription === undefined ? closesV1(event) : ENDED_V1.includes(event?.statusUpdate?.status?.state);
    const events = await bridge.eventsUntil(taskId, ends);
    for (const [index, event] of events.entries()) {
      // A SubscribeToTask stream's notifications name its request (CONTRACT 7.3); the rest is a StreamResponse.
      const { subscription: named, ...item } = event;
      assert.equal(named, subscription, `stream item ${index + 1} names its subscription`);
      assertStreamResponse(item, `stream item ${index + 1}`);
    }
    return events;
  }

  it("SendMessage (blocking) on `ok`: { task } completed, with its output, history and adapter metadata", async () => {
    const { task } = await v1("SendMessage", paramsV1(envelopeParams("ok")), "Send Message Response");
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(task.status.message.role, "ROLE_AGENT");
    assert.equal(artifactText(task, "stdout"), "ok\n");
    const stdout = task.artifacts.find((artifact: Wire) => artifact.artifactId === "stdout");
    assert.deepEqual(stdout.metadata, { total_bytes: 3, dropped_bytes: 0 });
    assert.equal(typeof stdout.parts[0].metadata.seq, "number");
    assert.equal(task.history[0].role, "ROLE_USER");
    assert.deepEqual(task.history[0].parts, [{ text: "run the fixture" }]);
    const meta = task.metadata[ADAPTER_URI];
    assert.equal(meta.exit_code, 0);
    assert.equal(meta.reason, "exit");
    assert.equal(task.status.fail_kind, undefined, "the status carries no extra field");
  });

  it("SendMessage of `exit3`: failed, the fail kind in metadata[ADAPTER] and not on the status", async () => {
    const { task } = await v1("SendMessage", paramsV1(envelopeParams("exit3")), "Send Message Response");
    assert.equal(task.status.state, "TASK_STATE_FAILED");
    assert.equal(task.metadata[ADAPTER_URI].fail_kind, "application");
    assert.equal(task.metadata[ADAPTER_URI].exit_code, 3);
    assert.deepEqual(Object.keys(task.status).sort(), ["message", "state", "timestamp"]);
  });

  it("SendMessage with returnImmediately (or return_immediately) answers at once; CancelTask cancels, twice is -32002", async () => {
    for (const configuration of [{ returnImmediately: true }, { return_immediately: true }]) {
      const params = { ...paramsV1(envelopeParams("hang", { envelope: { timeout_seconds: 60 } })), configuration };
      const { task } = await v1("SendMessage", params, "Send Message Response");
      assert.ok(["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING"].includes(task.status.state), task.status.state);
      const canceled = await v1("CancelTask", { id: task.id }, "Task");
      assert.equal(canceled.status.state, "TASK_STATE_CANCELED");
      const again = await fails("CancelTask", { id: task.id });
      const { info } = assertErrorV1(again, -32002, "TASK_NOT_CANCELABLE");
      assert.equal(info.metadata.taskId, task.id);
      assert.equal(info.metadata.state, "TASK_STATE_CANCELED", "states in 1.0 names, in the details too");
    }
  });

  it("requests in snake_case, with unknown fields anywhere: read as camelCase, the unknown ones ignored", async () => {
    const message = messageV1(echoParams("snake").message);
    const params = {
      message: { ...message, context_id: "ctx-snake", unknown_field: 1, parts: [{ text: "snake", extra: true }] },
      configuration: { history_length: 0, accepted_output_modes: ["text/plain"], someday: "maybe" },
      tenant: "",
      what: { ever: 1 },
    };
    const { task } = await v1("SendMessage", params, "Send Message Response");
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(task.contextId, "ctx-snake");
    assert.equal(task.history, undefined, "history_length 0 leaves the history out");
    assert.equal(artifactText(task, "stdout"), "snake\n");
    const got = await v1("GetTask", { id: task.id, history_length: 0, unknown: [1] }, "Task");
    assert.equal(got.history, undefined);
  });

  it("GetTask: the task with artifacts and history; historyLength 0 leaves history out; unknown is -32001", async () => {
    const { task } = await v1("SendMessage", paramsV1(echoParams(["one", "two"])), "Send Message Response");
    const got = await v1("GetTask", { id: task.id }, "Task");
    assert.equal(artifactText(got, "stdout"), "one\ntwo\n");
    assert.equal(got.history.length, 1);
    assert.deepEqual(got.history[0].parts, [{ text: "one" }, { text: "two" }]);
    assert.equal((await v1("GetTask", { id: task.id, historyLength: 0 }, "Task")).history, undefined);
    const unknown = await fails("GetTask", { id: "no-such-task" });
    assert.equal(assertErrorV1(unknown, -32001, "TASK_NOT_FOUND").info.metadata.taskId, "no-such-task");
  });

  it("bad params are -32602 with ErrorInfo INVALID_PARAMS and a BadRequest naming the field", async () => {
    for (const [method, params, field] of [
      ["GetTask", { id: 5 }, "/id"],
      ["GetTask", {}, "/id"],
      ["CancelTask", { id: null }, "/id"],
      ["GetTask", { id: "x", historyLength: -1 }, "/historyLength"],
    ] as const) {
      const error = await fails(method, params);
      const { violations } = assertErrorV1(error, -32602, "INVALID_PARAMS");
      assert.equal(violations?.[0]?.field, field, JSON.stringify(error));
    }
    const missing = await fails("GetTask", {});
    assert.match(missing.message, /missing required field "id": expected a string, found nothing/);
    const notAnObject = await fails("SendMessage", [1, 2]);
    assertErrorV1(notAnObject, -32602, "INVALID_PARAMS");
  });

  it("a rejected envelope: -32602 `adapter-command/v1 rejected:`, ADAPTER_COMMAND_REJECTED and a field violation per problem; no task", async () => {
    const before = (await allTasks(bridge, {}, "ListTasks")).length;
    const params = paramsV1(envelopeParams("ok", { envelope: { mode: "Plan", timeout_seconds: "300", shell: true } }));
    const error = await fails("SendMessage", params);
    assert.match(error.message, /^adapter-command\/v1 rejected:/);
    const { violations } = assertErrorV1(error, -32602, "ADAPTER_COMMAND_REJECTED", OUR_DOMAIN);
    const base = "/message/metadata/https:~1~1agentic-sandbox.aiwg.io~1extensions~1adapter-command~1v1";
    assert.deepEqual(
      (violations ?? []).map((v) => [v.field, v.reason]).sort(),
      [
        [`${base}/mode`, "invalid_value"],
        [`${base}/shell`, "unknown_field"],
        [`${base}/timeout_seconds`, "wrong_type"],
      ].sort(),
      JSON.stringify(violations),
    );
    for (const violation of violations ?? []) assert.match(violation.description, /expected/);
    assert.equal((await allTasks(bridge, {}, "ListTasks")).length, before, "no task was created");
  });

  it("echo: a part that is not text/plain is -32005 at its pointer, no part -32602; with an envelope a part of each kind is read", async () => {
    const error = await fails("SendMessage", {
      message: { messageId: "m-data", role: "ROLE_USER", parts: [{ text: "x" }, { data: { a: 1 } }] },
    });
    const { violations } = assertErrorV1(error, -32005, "CONTENT_TYPE_NOT_SUPPORTED", A2A_DOMAIN);
    assert.equal(violations?.[0]?.field, "/message/parts/1");
    const none = await fails("SendMessage", { message: { messageId: "m-none", role: "ROLE_USER", parts: [] } });
    assert.equal(none.code, -32602);
    const parts = [
      { text: "first" },
      { data: { a: 1 } },
      { url: "https://example.com/a.txt", mediaType: "text/plain", filename: "a.txt" },
      { raw: "aGk=", filename: "b.bin" },
    ];
    const params = paramsV1(envelopeParams("ok"));
    const { task } = await v1(
      "SendMessage",
      { ...params, message: { ...(params.message as object), messageId: "m-parts", parts } },
      "Send Message Response",
    );
    assert.equal(artifactText(task, "stdout"), "ok\n");
    assert.deepEqual(task.history[0].parts, parts);
  });

  it("a taskId that names no task is -32001; a message to an existing task that is not an answer is -32004 (A2A 1.0 §3.1.1, §3.4.2)", async () => {
    const { task } = await v1("SendMessage", paramsV1(echoParams("first")), "Send Message Response");
    const follow = paramsV1(echoParams("follow-up"));
    const message = follow.message as Record<string, unknown>;
    message.taskId = task.id;
    const ended = assertErrorV1(await fails("SendMessage", follow), -32004, "UNSUPPORTED_OPERATION");
    assert.deepEqual([ended.info.metadata.taskId, ended.info.metadata.state], [task.id, "TASK_STATE_COMPLETED"]);
    message.taskId = "no-such-task";
    assertErrorV1(await fails("SendMessage", follow), -32001, "TASK_NOT_FOUND");
    assertErrorV1(await fails("SendStreamingMessage", follow), -32001, "TASK_NOT_FOUND");
  });

  it("SendStreamingMessage on `interleave`: { task } first, then StreamResponses in order; it closes at COMPLETED", async () => {
    const response = await bridge.callRaw("SendStreamingMessage", paramsV1(envelopeParams("interleave")));
    assertStreamResponse(response.result, "the stream's first item");
    const taskId = response.result.task.id;
    const events = await streamOf(taskId);
    const resultLine = bridge.responseLine.get(response.id as string) as number;
    for (const event of events) assert.ok((bridge.lineOf(event) as number) > resultLine, "events follow the result");
    assert.equal(eventText(events, "stdout"), interleaveOut);
    assert.equal(eventText(events, "stderr"), interleaveErr);
    const updates = events.filter((event) => event.artifactUpdate).map((event) => event.artifactUpdate);
    const seqs = updates.map((update) => update.artifact.parts[0].metadata.seq as number);
    for (let i = 1; i < seqs.length; i++) assert.ok((seqs[i] as number) > (seqs[i - 1] as number), "seq increases");
    for (const stream of ["stdout", "stderr"]) {
      const chunks = updates.filter((update) => update.artifact.artifactId === stream);
      chunks.forEach((update, index) => {
        assert.equal(update.append, index > 0, `append of ${stream} chunk ${index}`);
        assert.equal(update.lastChunk, false, "lastChunk is always present");
        assert.equal(update.taskId, taskId);
      });
    }
    const statuses = events.filter((event) => event.statusUpdate).map((event) => event.statusUpdate.status.state);
    assert.equal(statuses.at(-1), "TASK_STATE_COMPLETED");
    assert.ok(!statuses.slice(0, -1).some((state) => state === "TASK_STATE_COMPLETED"));
    // Nothing follows the closing event.
    await v1("GetTask", { id: taskId }, "Task");
    assert.deepEqual(bridge.queuedEvents(taskId), []);
  });

  it("SubscribeToTask of a running task: { task } as it is, then its events until CANCELED; an ended task is -32004", async () => {
    const started = await v1(
      "SendMessage",
      {
        ...paramsV1(envelopeParams("pid-hang", { envelope: { timeout_seconds: 60 } })),
        configuration: { returnImmediately: true },
      },
      "Send Message Response",
    );
    const id = started.task.id;
    let running: Wire;
    for (;;) {
      running = await v1("GetTask", { id }, "Task");
      if (/pid \d+/.test(artifactText(running, "stdout"))) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    groups.push(Number(/pid (\d+)/.exec(artifactText(running, "stdout"))?.[1]));
    const subscribed = await bridge.callRaw("SubscribeToTask", { id });
    const first = subscribed.result;
    assertStreamResponse(first);
    assert.equal(first.task.status.state, "TASK_STATE_WORKING");
    assert.match(artifactText(first.task, "stdout"), /pid \d+/);
    await v1("CancelTask", { id }, "Task");
    const events = await streamOf(id, subscribed.id);
    assert.equal(events.at(-1)?.statusUpdate.status.state, "TASK_STATE_CANCELED");
    const ended = await fails("SubscribeToTask", { id });
    const { info } = assertErrorV1(ended, -32004, "UNSUPPORTED_OPERATION");
    assert.deepEqual([info.metadata.taskId, info.metadata.state], [id, "TASK_STATE_CANCELED"]);
    assertErrorV1(await fails("SubscribeToTask", { id: "no-such-task" }), -32001, "TASK_NOT_FOUND");
  });

  it("GetExtendedAgentCard serves the extended card; the push config methods name an unknown task, in 1.0 and in 0.3 shapes", async () => {
    const extended = await bridge.call("GetExtendedAgentCard", {});
    assert.equal(extended.capabilities.extendedAgentCard, true);
    const params = extended.capabilities.extensions.find((e: Wire) => e.uri === ADAPTER_URI).params;
    assert.equal(params.limits.max_body_bytes, null, "stdio has no body limit");
    assert.equal(params.limits.max_line_bytes, 1048576);
    for (const method of [
      "CreateTaskPushNotificationConfig",
      "GetTaskPushNotificationConfig",
      "ListTaskPushNotificationConfigs",
      "DeleteTaskPushNotificationConfig",
    ]) {
      assertErrorV1(await fails(method, { taskId: "t", id: "c" }), -32001, "TASK_NOT_FOUND");
    }
    for (const [method, params] of [
      ["set", { taskId: "t", pushNotificationConfig: { url: "http://127.0.0.1:9/" } }],
      ["get", { id: "t" }],
      ["list", { id: "t" }],
      ["delete", { id: "t", pushNotificationConfigId: "c" }],
    ] as const) {
      const error = await fails(`tasks/pushNotificationConfig/${method}`, params);
      assert.equal(error.code, -32001, `${method}: ${JSON.stringify(error)}`);
      assert.ok(error.data !== null && typeof error.data === "object" && !Array.isArray(error.data), "0.3 data");
    }
    const card = await bridge.call("agent/getAuthenticatedExtendedCard");
    assert.equal(card.protocolVersion, "0.3.0");
    assert.equal(card.capabilities.extensions[0].params.state_dir, false);
  });

  it("A2A-Version: 1.0 (any case of the name) is served; 99.0 and the other family's version are -32009 in the method's family", async () => {
    const echo = paramsV1(echoParams("versioned"));
    const accepted: Array<Record<string, string>> = [
      { "A2A-Version": "1.0" },
      { "a2a-version": "1.0" },
      { "A2A-Version": " 1.0 " },
      {},
    ];
    for (const service of accepted) {
      const { task } = await v1("SendMessage", withService(echo, service), "Send Message Response");
      assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    }
    for (const version of ["99.0", "0.3", "2", "abc"]) {
      const error = await fails("SendMessage", withService(echo, { "A2A-Version": version }));
      const { info } = assertErrorV1(error, -32009, "VERSION_NOT_SUPPORTED");
      assert.equal(info.metadata.version, version);
      assertErrorV1(
        await fails("GetTask", withService({ id: "x" }, { "A2A-Version": version })),
        -32009,
        "VERSION_NOT_SUPPORTED",
      );
    }
    // The 0.3 family answers in 0.3 shapes: `data` an object.
    assert.equal(
      (await bridge.call("message/send", withService(echoParams("v"), { "A2A-Version": "0.3" }))).kind,
      "task",
    );
    for (const version of ["99.0", "1.0"]) {
      const error = await fails("message/send", withService(echoParams("v"), { "A2A-Version": version }));
      assert.equal(error.code, -32009);
      assert.deepEqual(error.data, { version }, JSON.stringify(error));
      const get = await fails("tasks/get", withService({ id: "x" }, { "A2A-Version": version }));
      assert.equal(get.code, -32009);
      assert.ok(!Array.isArray(get.data));
    }
  });

  it("the 1.0 names are case-sensitive: another spelling is -32601", async () => {
    for (const method of ["sendMessage", "Sendmessage", "GetTasks", "message/Send"]) {
      const error = await fails(method, {});
      assert.equal(error.code, -32601, method);
    }
    assert.match((await fails("sendMessage", {})).message, /did you mean "SendMessage"\?$/);
  });

  it("ErrorInfo domains: A2A errors a2a-protocol.org, the rest agentic-sandbox.aiwg.io", async () => {
    assert.equal(
      assertErrorV1(await fails("GetTask", { id: "nope" }), -32001, "TASK_NOT_FOUND").info.domain,
      A2A_DOMAIN,
    );
  });

  it("every stdout line was JSON-RPC 2.0", () => {
    assert.deepEqual(bridge.protocolProblems, []);
    assert.deepEqual(bridge.pendingRawResponses(), []);
  });
});
