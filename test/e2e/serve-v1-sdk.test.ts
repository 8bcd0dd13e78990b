// The official A2A client (@a2a-js/sdk 1.3, its 1.0 JSON-RPC transport) driving `serve --stdio`: each JSON-RPC body
// it would POST is carried over stdio (test/helpers/stdio-fetch.ts). The SDK parses every answer with its own
// ProtoJSON decoders, so what it reads back is what a 1.0 client gets from the bridge.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Role, SendMessageRequest, type StreamResponse, TaskState } from "@a2a-js/sdk";
import { type Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { agentCard10 } from "../../src/a2a/card.js";
import { HITL_URI } from "../../src/core/uris.js";
import { suiteBridge } from "../helpers/bridge.js";
import { echoParams, envelopeParams, textLineParams } from "../helpers/envelopes.js";
import { stdioFetch } from "../helpers/stdio-fetch.js";
import { paramsV1 } from "../helpers/v1-requests.js";
import type { Wire } from "../helpers/wire.js";

/** An SDK request built by the SDK's own decoder from a 1.0 SendMessageRequest in JSON. */
const request = (params: Record<string, unknown>) => SendMessageRequest.fromJSON(paramsV1(params));

const textOf = (parts: Wire[] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
const artifactOf = (task: Wire, id: string) => textOf(task.artifacts?.find((a: Wire) => a.artifactId === id)?.parts);

describe("serve --stdio driven by @a2a-js/sdk (1.0 JSON-RPC)", () => {
  const bridge = suiteBridge({ args: ["--settle-ms", "100"] });
  const log = { requests: [] as Wire[] };
  let client: Client | undefined;

  async function sdk(): Promise<Client> {
    if (client) return client;
    const card = agentCard10("0.0.0", "sdk-test", "stdio://adapter-command");
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: stdioFetch(bridge(), log) })],
      preferredTransports: ["JSONRPC"],
    });
    client = await factory.createFromAgentCard(card as never);
    return client;
  }

  it("picks the 1.0 JSON-RPC interface of the card, and sends A2A-Version 1.0", async () => {
    const c = await sdk();
    assert.equal(c.protocolVersion, "1.0");
    const result: Wire = await c.sendMessage(request(echoParams("hello sdk")));
    assert.equal(result.status.state, TaskState.TASK_STATE_COMPLETED);
    const sent = log.requests.at(-1);
    assert.equal(sent.method, "SendMessage");
    assert.equal(sent.params.metadata["a2a-service-parameters"]["A2A-Version"], "1.0");
  });

  it("sendMessage of an envelope (blocking): the task as the SDK reads it, completed, with its output", async () => {
    const task: Wire = await (await sdk()).sendMessage(request(envelopeParams("ok")));
    assert.equal(task.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactOf(task, "stdout"), "ok\n");
    assert.equal(task.artifacts[0].metadata.total_bytes, 3);
    assert.equal(task.history[0].role, Role.ROLE_USER);
    assert.match(task.status.timestamp, /Z$/);
  });

  it("sendMessageStream on `interleave`: the task, then status and artifact updates, to the completed status", async () => {
    const events: StreamResponse[] = [];
    for await (const event of (await sdk()).sendMessageStream(request(envelopeParams("interleave"))))
      events.push(event);
    assert.equal(events[0]?.payload?.$case, "task");
    const last = events.at(-1)?.payload;
    assert.equal(last?.$case, "statusUpdate");
    assert.equal(last?.$case === "statusUpdate" && last.value.status?.state, TaskState.TASK_STATE_COMPLETED);
    const text = (stream: string) =>
      events
        .map((event) => event.payload)
        .filter((payload) => payload?.$case === "artifactUpdate" && payload.value.artifact?.artifactId === stream)
        .map((payload) => (payload?.$case === "artifactUpdate" ? textOf(payload.value.artifact?.parts) : ""))
        .join("");
    assert.equal(text("stdout"), Array.from({ length: 200 }, (_, i) => `out ${i + 1}\n`).join(""));
    assert.equal(text("stderr"), Array.from({ length: 200 }, (_, i) => `err ${i + 1}\n`).join(""));
  });

  it("getTask (historyLength) and listTasks (pages, contextId, status) as the SDK sends them", async () => {
    const c = await sdk();
    const context = `sdk-${process.pid}`;
    const sent: Wire[] = [];
    for (const text of ["one", "two", "three"])
      sent.push(await c.sendMessage(request(echoParams(text, { contextId: context }))));
    const got: Wire = await c.getTask({ tenant: "", id: sent[0].id, historyLength: 0 });
    assert.equal(got.id, sent[0].id);
    assert.equal(artifactOf(got, "stdout"), "one\n");
    assert.deepEqual(got.history, []);

    const base = {
      tenant: "",
      contextId: context,
      status: TaskState.TASK_STATE_UNSPECIFIED,
      statusTimestampAfter: undefined,
    };
    const ids: string[] = [];
    let pageToken = "";
    do {
      const page = await c.listTasks({ ...base, pageSize: 2, pageToken, includeArtifacts: false });
      assert.equal(page.totalSize, 3);
      ids.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    assert.deepEqual([...ids].sort(), sent.map((task) => task.id).sort());
    const completed = await c.listTasks({
      ...base,
      status: TaskState.TASK_STATE_COMPLETED,
      pageToken: "",
      includeArtifacts: true,
    });
    assert.equal(completed.tasks.length, 3);
    assert.ok(completed.tasks.every((task) => task.artifacts.length === 1));
    const none = await c.listTasks({
      ...base,
      status: TaskState.TASK_STATE_WORKING,
      pageToken: "",
      includeArtifacts: false,
    });
    assert.deepEqual([none.tasks, none.nextPageToken], [[], ""]);
  });

  it("cancelTask of a running task: canceled; again, and getTask of an unknown task, are the SDK's typed errors", async () => {
    const c = await sdk();
    const params = { ...request(envelopeParams("hang", { envelope: { timeout_seconds: 60 } })) };
    params.configuration = {
      ...(params.configuration as NonNullable<typeof params.configuration>),
      returnImmediately: true,
    };
    const started: Wire = await c.sendMessage(params);
    const canceled: Wire = await c.cancelTask({ tenant: "", id: started.id, metadata: undefined });
    assert.equal(canceled.status.state, TaskState.TASK_STATE_CANCELED);
    await assert.rejects(c.cancelTask({ tenant: "", id: started.id, metadata: undefined }), {
      name: "TaskNotCancelableError",
    });
    await assert.rejects(c.getTask({ tenant: "", id: "no-such-task" }), { name: "TaskNotFoundError" });
  });

  it("a prompt through the SDK: A2A-Extensions as a service parameter, the answer with sendMessage", async () => {
    const c = await sdk();
    const options = { serviceParameters: { "A2A-Extensions": HITL_URI } };
    const { metadata: _service, ...params } = textLineParams("ask");
    const task: Wire = await c.sendMessage(request(params), options);
    assert.equal(task.status.state, TaskState.TASK_STATE_INPUT_REQUIRED);
    const promptId = task.status.message.messageId;
    assert.equal(task.status.message.metadata[HITL_URI].prompt_id, promptId);
    const answer = SendMessageRequest.fromJSON({
      message: {
        messageId: `answer-${promptId}`,
        role: "ROLE_USER",
        taskId: task.id,
        contextId: task.contextId,
        parts: [{ text: "y" }],
        metadata: { hitl_response_for: { prompt_id: promptId, payload: { text: "y" } } },
      },
    });
    const working: Wire = await c.sendMessage(answer);
    assert.equal(working.status.state, TaskState.TASK_STATE_COMPLETED, "a blocking answer waits for the end");
    let done: Wire = working;
    while (![TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED].includes(done.status.state)) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      done = await c.getTask({ tenant: "", id: task.id });
    }
    assert.equal(done.status.state, TaskState.TASK_STATE_COMPLETED);
    assert.match(artifactOf(done, "stdout"), /answer: y/);
  });

  it("every stdout line was JSON-RPC 2.0", () => {
    assert.deepEqual(bridge().protocolProblems, []);
  });
});
