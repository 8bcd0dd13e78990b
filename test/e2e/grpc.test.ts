// The gRPC binding of `serve --http --grpc-port 0` end to end (docs/reference.md, "gRPC"; A2A 1.0 §10): the official
// @a2a-js/sdk 1.0 gRPC transport (picked from the card's GRPC interface) for what a client does, and a raw grpc-js
// client (test/helpers/grpc-client.ts) where the answer's metadata, a failure's google.rpc.Status details, or
// malformed input are what is tested.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  TaskState as SdkTaskState,
  SendMessageRequest,
  type StreamResponse,
  SubscribeToTaskRequest,
  type Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { type Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { create, type JsonObject } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { IDEMPOTENCY_URI } from "../../src/core/uris.js";
import {
  AgentCardSchema,
  CancelTaskRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskRequestSchema,
  Role,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
} from "../../src/grpc/gen/a2a_pb.js";
import { metadataOf, RawGrpc } from "../helpers/grpc-client.js";
import { ADAPTER_URI, HITL_URI, type HttpServer, startHttp } from "../helpers/http-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";
import type { Wire } from "../helpers/wire.js";

const RUNNER = ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"];
const MAX_BODY_BYTES = 65536;
let messages = 0;

/** The envelope for a fixture working directory (test/fixtures/workspace), with `fields` over the defaults. */
function envelopeFor(fixture: string, fields: Record<string, unknown> = {}): JsonObject {
  return {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: RUNNER,
    working_dir: fixture,
    timeout_seconds: 30,
    ...fields,
  } as JsonObject;
}

/** An SDK SendMessageRequest (from its JSON form): `text`, optionally an envelope, an answer, returnImmediately. */
function sdkRequest(
  text: string,
  options: {
    fixture?: string;
    envelope?: Record<string, unknown>;
    returnImmediately?: boolean;
    answer?: { task: { id: string; contextId: string }; promptId: string };
  } = {},
): SendMessageRequest {
  messages += 1;
  const metadata: Record<string, unknown> = {};
  if (options.fixture) metadata[ADAPTER_URI] = envelopeFor(options.fixture, options.envelope);
  const answer = options.answer;
  if (answer) metadata.hitl_response_for = { prompt_id: answer.promptId, payload: { text } };
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `grpc-sdk-${process.pid}-${messages}`,
      role: "ROLE_USER",
      parts: [{ text }],
      metadata,
      ...(answer ? { taskId: answer.task.id, contextId: answer.task.contextId } : {}),
    },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

/** A raw (generated-schema) SendMessageRequest; `metadata` is the message's. */
function rawRequest(text: string, metadata?: JsonObject) {
  messages += 1;
  return create(SendMessageRequestSchema, {
    message: {
      messageId: `grpc-raw-${process.pid}-${messages}`,
      role: Role.USER,
      parts: [{ content: { case: "text", value: text } }],
      ...(metadata ? { metadata } : {}),
    },
  });
}

/** The SDK's send result is a Task here: every send creates or answers a task. */
function taskOf(result: unknown): Task {
  assert.ok(result && typeof result === "object" && "status" in result, JSON.stringify(result));
  return result as Task;
}

const textOfParts = (parts: Wire[] | undefined) =>
  (parts ?? []).map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("");
const artifactText = (task: Task, id: string) =>
  textOfParts(task.artifacts.find((artifact) => artifact.artifactId === id)?.parts as Wire[] | undefined);
const stateOf = (item: StreamResponse | undefined) =>
  item?.payload?.$case === "statusUpdate" ? item.payload.value.status?.state : undefined;

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const items: StreamResponse[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

/** A JSON object nested `depth` levels deep. */
function nested(depth: number): JsonObject {
  let value: JsonObject = { leaf: true };
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

/** A client of the official SDK that picks the card's GRPC interface; `options` go with every call. */
async function sdkClient(server: HttpServer): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new GrpcTransportFactory()],
      preferredTransports: ["GRPC"],
    }),
  );
  const client = await factory.createFromUrl(server.url);
  assert.equal(client.transport.protocolName, "GRPC");
  assert.equal(client.protocolVersion, "1.0");
  return client;
}

/** Closes the SDK transport's grpc-js channel (it would keep the test process alive). */
function closeSdk(client: Client | undefined): void {
  (client?.transport as unknown as { grpcClient?: grpc.Client } | undefined)?.grpcClient?.close();
}

describe("serve --http --grpc-port 0: the gRPC binding", { timeout: 120_000 }, () => {
  let server: HttpServer;
  let target: string;
  let client: Client;
  let raw: RawGrpc;
  let receiver: WebhookReceiver;
  before(async () => {
    server = await startHttp([
      "--no-auth",
      "--grpc-port",
      "0",
      "--settle-ms",
      "100",
      "--max-body-bytes",
      String(MAX_BODY_BYTES),
    ]);
    target = (server.start as unknown as { grpc: string }).grpc;
    assert.match(target, /^127\.0\.0\.1:\d+$/);
    receiver = await WebhookReceiver.start();
    client = await sdkClient(server);
    raw = new RawGrpc(target);
  });
  after(async () => {
    closeSdk(client);
    raw?.close();
    await receiver?.close();
    await server?.close();
  });

  it("the public card lists the GRPC interface at the start line's address", async () => {
    const card = await server.fetch("/.well-known/agent-card.json");
    assert.equal(card.status, 200, card.text);
    const grpcInterfaces = card.body.supportedInterfaces.filter((i: Wire) => i.protocolBinding === "GRPC");
    assert.deepEqual(
      grpcInterfaces.map((i: Wire) => ({
        url: i.url,
        protocolBinding: i.protocolBinding,
        protocolVersion: i.protocolVersion,
      })),
      [{ url: target, protocolBinding: "GRPC", protocolVersion: "1.0" }],
    );
  });

  it("SendMessage of an envelope that completes: state completed, the stdout artifact", async () => {
    const task = taskOf(await client.sendMessage(sdkRequest("run ok", { fixture: "ok" })));
    assert.equal(task.status?.state, SdkTaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(task, "stdout"), "ok\n");
    assert.equal(task.history[0]?.parts[0]?.content?.$case, "text");
    // The same through the raw client: the bytes are a SendMessageResponse whose payload is the task.
    const answer = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("run ok", { [ADAPTER_URI]: envelopeFor("ok") }),
      SendMessageResponseSchema,
    );
    assert.ok(answer.ok, answer.failure?.details);
    assert.equal(answer.message.payload.case, "task");
    const rawTask = answer.message.payload.value as Wire;
    assert.equal(rawTask.status.state, TaskState.COMPLETED);
    const stdout = rawTask.artifacts.find((artifact: Wire) => artifact.artifactId === "stdout");
    assert.equal(stdout.parts[0].content.value, "ok\n");
  });

  it("SendStreamingMessage follows a task to its end: the task, every output event, then completed", async () => {
    const items = await collect(client.sendMessageStream(sdkRequest("interleave", { fixture: "interleave" })));
    assert.equal(items[0]?.payload?.$case, "task");
    assert.equal(stateOf(items.at(-1)), SdkTaskState.TASK_STATE_COMPLETED);
    const taskId = items[0]?.payload?.$case === "task" ? items[0].payload.value.id : undefined;
    for (const item of items.slice(1)) {
      const value = item.payload?.value as { taskId?: string } | undefined;
      assert.equal(value?.taskId, taskId, "every event is of the task");
    }
    const text = (stream: string) =>
      items
        .map((item) => item.payload)
        .filter((payload) => payload?.$case === "artifactUpdate" && payload.value.artifact?.artifactId === stream)
        .map((payload) =>
          payload?.$case === "artifactUpdate" ? textOfParts(payload.value.artifact?.parts as Wire[]) : "",
        )
        .join("");
    assert.equal(text("stdout"), Array.from({ length: 200 }, (_, i) => `out ${i + 1}\n`).join(""));
    assert.equal(text("stderr"), Array.from({ length: 200 }, (_, i) => `err ${i + 1}\n`).join(""));
    const ended = items.filter((item) => stateOf(item) === SdkTaskState.TASK_STATE_COMPLETED);
    assert.equal(ended.length, 1, "one completed status, the last event");
  });

  it("GetTask: the task as sent, historyLength 0 leaves out the history", async () => {
    const sent = taskOf(await client.sendMessage(sdkRequest("get me", { fixture: "ok" })));
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id }));
    assert.equal(got.id, sent.id);
    assert.equal(got.contextId, sent.contextId);
    assert.equal(got.status?.state, SdkTaskState.TASK_STATE_COMPLETED);
    assert.equal(artifactText(got, "stdout"), "ok\n");
    assert.ok(got.history.length >= 1);
    const bare = await client.getTask(GetTaskRequest.fromJSON({ id: sent.id, historyLength: 0 }));
    assert.deepEqual(bare.history, []);
  });

  it("ListTasks: pages of a context, and a status filter", async () => {
    const contextId = `grpc-list-${process.pid}`;
    const sent: Task[] = [];
    for (const text of ["one", "two", "three"]) {
      messages += 1;
      const request = SendMessageRequest.fromJSON({
        message: { messageId: `grpc-list-${messages}`, role: "ROLE_USER", parts: [{ text }], contextId },
      });
      sent.push(taskOf(await client.sendMessage(request)));
    }
    const ids: string[] = [];
    let pageToken = "";
    do {
      const page = await client.listTasks(ListTasksRequest.fromJSON({ contextId, pageSize: 2, pageToken }));
      assert.equal(page.totalSize, 3);
      assert.ok(page.tasks.length <= 2);
      ids.push(...page.tasks.map((task) => task.id));
      pageToken = page.nextPageToken;
    } while (pageToken !== "");
    assert.deepEqual([...ids].sort(), sent.map((task) => task.id).sort());
    const working = await client.listTasks(ListTasksRequest.fromJSON({ contextId, status: "TASK_STATE_WORKING" }));
    assert.deepEqual(working.tasks, []);
    const completed = await client.listTasks(
      ListTasksRequest.fromJSON({ contextId, status: "TASK_STATE_COMPLETED", includeArtifacts: true }),
    );
    assert.equal(completed.tasks.length, 3);
    assert.ok(completed.tasks.every((task) => task.artifacts.length === 1));
  });

  it("CancelTask of a running task: canceled", async () => {
    const started = taskOf(
      await client.sendMessage(
        sdkRequest("hang", { fixture: "hang", envelope: { timeout_seconds: 60 }, returnImmediately: true }),
      ),
    );
    assert.ok(
      [SdkTaskState.TASK_STATE_SUBMITTED, SdkTaskState.TASK_STATE_WORKING].includes(
        started.status?.state as SdkTaskState,
      ),
      `running: ${started.status?.state}`,
    );
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: started.id }));
    assert.equal(canceled.status?.state, SdkTaskState.TASK_STATE_CANCELED);
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: started.id }));
    assert.equal(got.status?.state, SdkTaskState.TASK_STATE_CANCELED);
  });

  it("CancelTask of an ended task: FAILED_PRECONDITION with ErrorInfo TASK_NOT_CANCELABLE", async () => {
    const done = taskOf(await client.sendMessage(sdkRequest("done", { fixture: "ok" })));
    assert.equal(done.status?.state, SdkTaskState.TASK_STATE_COMPLETED);
    const answer = await raw.unary(
      "CancelTask",
      CancelTaskRequestSchema,
      create(CancelTaskRequestSchema, { id: done.id }),
      TaskSchema,
    );
    assert.equal(answer.ok, false);
    const failure = answer.failure;
    assert.ok(failure);
    assert.equal(failure.code, grpc.status.FAILED_PRECONDITION, failure.details);
    assert.equal(failure.status?.code, grpc.status.FAILED_PRECONDITION);
    assert.equal(failure.status?.message, failure.details);
    assert.equal(failure.errorInfo?.reason, "TASK_NOT_CANCELABLE");
    assert.equal(failure.errorInfo?.domain, "a2a-protocol.org");
    // The SDK reads the same trailer as its typed error.
    await assert.rejects(client.cancelTask(CancelTaskRequest.fromJSON({ id: done.id })), {
      name: "TaskNotCancelableError",
    });
  });

  it("SubscribeToTask follows a running task: the task first, then its end once canceled", async () => {
    const running = taskOf(
      await client.sendMessage(sdkRequest("hang", { fixture: "pid-hang", returnImmediately: true })),
    );
    const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: running.id }));
    const first = await stream.next();
    assert.equal(first.done, false);
    assert.equal(first.value?.payload?.$case, "task");
    assert.equal((first.value?.payload?.value as Task | undefined)?.id, running.id);
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: running.id }));
    assert.equal(canceled.status?.state, SdkTaskState.TASK_STATE_CANCELED);
    const rest = await collect(stream);
    assert.equal(stateOf(rest.at(-1)), SdkTaskState.TASK_STATE_CANCELED, "the subscription saw the end");
  });

  it("a hitl prompt answered over gRPC: input-required, a2a-extensions echoed, the answer completes the task", async () => {
    const asked = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("ask", { [ADAPTER_URI]: envelopeFor("ask", { input_mode: "text-line" }) }),
      SendMessageResponseSchema,
      metadataOf(undefined, { "a2a-extensions": HITL_URI }),
    );
    assert.ok(asked.ok, asked.failure?.details);
    assert.deepEqual(asked.metadata.get("a2a-extensions"), [HITL_URI], "the activated extension is echoed");
    assert.equal(asked.message.payload.case, "task");
    const task = asked.message.payload.value as Wire;
    assert.equal(task.status.state, TaskState.INPUT_REQUIRED);
    const prompt = task.status.message.metadata[HITL_URI];
    assert.equal(prompt.prompt, "Continue? [y/N]");
    assert.equal(typeof prompt.prompt_id, "string");
    assert.deepEqual(task.status.message.extensions, [HITL_URI]);
    // The answer through the SDK, with the extension as a service parameter (gRPC metadata).
    const done = taskOf(
      await client.sendMessage(
        sdkRequest("y", { answer: { task: { id: task.id, contextId: task.contextId }, promptId: prompt.prompt_id } }),
        { serviceParameters: { "a2a-extensions": HITL_URI } },
      ),
    );
    assert.equal(done.status?.state, SdkTaskState.TASK_STATE_COMPLETED, "a blocking answer waits for the end");
    assert.match(artifactText(done, "stdout"), /answer: y/);
  });

  it("push config create, get, list, delete; the config is delivered to", async () => {
    const task = taskOf(await client.sendMessage(sdkRequest("push", { fixture: "ok" })));
    const created = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({
        taskId: task.id,
        id: "grpc-1",
        url: receiver.url("/grpc"),
        token: "grpc-token",
        authentication: { scheme: "Bearer", credentials: "grpc-cred" },
      }),
    );
    assert.equal(created.id, "grpc-1");
    assert.equal(created.taskId, task.id);
    assert.equal(created.url, receiver.url("/grpc"));
    assert.equal(created.token, "grpc-token");
    const got = await client.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "grpc-1" }),
    );
    assert.deepEqual(got, created);
    const listed = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
    );
    assert.deepEqual(listed.configs, [created]);
    const delivered = await receiver.waitUntil((request) => request.path === "/grpc");
    assert.equal(delivered.body.task.id, task.id);
    assert.equal(delivered.headers["x-a2a-notification-token"], "grpc-token");
    await client.deleteTaskPushNotificationConfig(
      DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "grpc-1" }),
    );
    const gone = await client.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
    );
    assert.deepEqual(gone.configs, []);
    await assert.rejects(
      client.getTaskPushNotificationConfig(
        GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "grpc-1" }),
      ),
    );
  });

  it("GetExtendedAgentCard: the extended card, with the operator's setup", async () => {
    const card = await client.getAgentCard();
    assert.equal(card.capabilities?.extendedAgentCard, true);
    const adapter = card.capabilities?.extensions.find((extension) => extension.uri === ADAPTER_URI);
    assert.equal(typeof adapter?.params?.workspace, "string", "the operator's setup (CONTRACT 8.2)");
    const answer = await raw.unary(
      "GetExtendedAgentCard",
      GetExtendedAgentCardRequestSchema,
      create(GetExtendedAgentCardRequestSchema, {}),
      AgentCardSchema,
    );
    assert.ok(answer.ok, answer.failure?.details);
    assert.ok(answer.message.supportedInterfaces.some((i) => i.protocolBinding === "GRPC" && i.url === target));
    const extension = answer.message.capabilities?.extensions.find((e) => e.uri === ADAPTER_URI);
    assert.equal(typeof extension?.params?.workspace, "string");
  });

  it("a2a-version in the metadata: 1.0 is served, another version is FAILED_PRECONDITION VERSION_NOT_SUPPORTED", async () => {
    const request = create(GetTaskRequestSchema, { id: "no-such-task" });
    const one = await raw.unary(
      "GetTask",
      GetTaskRequestSchema,
      request,
      TaskSchema,
      metadataOf(undefined, { "a2a-version": "1.0" }),
    );
    assert.equal(one.failure?.code, grpc.status.NOT_FOUND, "past the version check");
    const other = await raw.unary(
      "GetTask",
      GetTaskRequestSchema,
      request,
      TaskSchema,
      metadataOf(undefined, { "a2a-version": "99.0" }),
    );
    assert.equal(other.failure?.code, grpc.status.FAILED_PRECONDITION, other.failure?.details);
    assert.equal(other.failure?.errorInfo?.reason, "VERSION_NOT_SUPPORTED");
  });

  it("idempotency/v1 over gRPC: the same send again is the kept answer, said by idempotent-replayed", async () => {
    const metadata = () => metadataOf(undefined, { "a2a-extensions": IDEMPOTENCY_URI });
    const request = rawRequest("once", { [ADAPTER_URI]: envelopeFor("ok") });
    const first = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      request,
      SendMessageResponseSchema,
      metadata(),
    );
    assert.ok(first.ok, first.failure?.details);
    assert.equal(first.metadata.get("idempotent-replayed").length, 0, "a first answer is not a replay");
    assert.deepEqual(first.metadata.get("a2a-extensions"), [IDEMPOTENCY_URI]);
    const again = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      request,
      SendMessageResponseSchema,
      metadata(),
    );
    assert.ok(again.ok, again.failure?.details);
    assert.deepEqual(again.metadata.get("idempotent-replayed"), ["true"]);
    assert.equal((again.message.payload.value as Wire).id, (first.message.payload.value as Wire).id, "no second run");
  });

  it("an unknown task is NOT_FOUND, with ErrorInfo TASK_NOT_FOUND in grpc-status-details-bin", async () => {
    const answer = await raw.unary(
      "GetTask",
      GetTaskRequestSchema,
      create(GetTaskRequestSchema, { id: "no-such-task" }),
      TaskSchema,
    );
    assert.equal(answer.ok, false);
    const failure = answer.failure;
    assert.ok(failure);
    assert.equal(failure.code, grpc.status.NOT_FOUND, failure.details);
    assert.ok(failure.status, "the trailer is there");
    assert.equal(failure.status.code, grpc.status.NOT_FOUND);
    assert.equal(failure.status.message, failure.details);
    assert.equal(failure.errorInfo?.reason, "TASK_NOT_FOUND");
    assert.equal(failure.errorInfo?.domain, "a2a-protocol.org");
    await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: "no-such-task" })), {
      name: "TaskNotFoundError",
    });
  });

  it("an invalid envelope is INVALID_ARGUMENT with a BadRequest field violation", async () => {
    const answer = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("x", { [ADAPTER_URI]: envelopeFor("ok", { mode: "Plan" }) }),
      SendMessageResponseSchema,
    );
    assert.equal(answer.ok, false);
    const failure = answer.failure;
    assert.ok(failure);
    assert.equal(failure.code, grpc.status.INVALID_ARGUMENT, failure.details);
    assert.equal(failure.errorInfo?.reason, "ADAPTER_COMMAND_REJECTED");
    assert.equal(failure.errorInfo?.domain, "agentic-sandbox.aiwg.io");
    const violations = failure.badRequest?.fieldViolations ?? [];
    assert.ok(
      violations.some((violation) => violation.field.endsWith("/mode") && violation.reason === "invalid_value"),
      JSON.stringify(violations),
    );
  });

  it("a Struct nested deeper than 100 levels is INVALID_ARGUMENT; 90 levels is taken", async () => {
    const deep = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("deep", { deep: nested(101) }),
      SendMessageResponseSchema,
    );
    assert.equal(deep.ok, false);
    assert.equal(deep.failure?.code, grpc.status.INVALID_ARGUMENT, deep.failure?.details);
    assert.match(deep.failure?.details ?? "", /expected at most 100 levels of nesting/);
    const fine = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("fine", { fine: nested(90) }),
      SendMessageResponseSchema,
    );
    assert.ok(fine.ok, fine.failure?.details);
  });

  it("a request message over --max-body-bytes is RESOURCE_EXHAUSTED; one under it is served", async () => {
    const big = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("x".repeat(MAX_BODY_BYTES + 1024)),
      SendMessageResponseSchema,
    );
    assert.equal(big.ok, false);
    assert.equal(big.failure?.code, grpc.status.RESOURCE_EXHAUSTED, big.failure?.details);
    const small = await raw.unary(
      "SendMessage",
      SendMessageRequestSchema,
      rawRequest("x".repeat(MAX_BODY_BYTES - 1024)),
      SendMessageResponseSchema,
    );
    assert.ok(small.ok, small.failure?.details);
    assert.equal((small.message.payload.value as Wire).status.state, TaskState.COMPLETED);
  });

  it("SendStreamingMessage through the raw client: every message a StreamResponse, the last completed", async () => {
    const { done } = raw.stream(
      "SendStreamingMessage",
      SendMessageRequestSchema,
      rawRequest("run ok", { [ADAPTER_URI]: envelopeFor("ok") }),
      StreamResponseSchema,
    );
    const result = await done;
    assert.equal(result.failure, undefined, result.failure?.details);
    assert.equal(result.messages[0]?.payload.case, "task");
    const last = result.messages.at(-1)?.payload;
    assert.equal(last?.case, "statusUpdate");
    assert.equal(last?.case === "statusUpdate" && last.value.status?.state, TaskState.COMPLETED);
  });
});

describe("serve --http --grpc-port 0 --token-file: the bearer token over gRPC", { timeout: 60_000 }, () => {
  const TOKEN = `grpc-token-${process.pid}-abcdefghijklmnop`;
  let dir: string;
  let server: HttpServer;
  let target: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "grpc-token-"));
    const file = join(dir, "token");
    writeFileSync(file, `${TOKEN}\n`, { mode: 0o600 });
    server = await startHttp(["--grpc-port", "0", "--token-file", file]);
    target = (server.start as unknown as { grpc: string }).grpc;
  });
  after(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const getTask = (metadata: grpc.Metadata) => {
    const client = new RawGrpc(target);
    return client
      .unary(
        "GetTask",
        GetTaskRequestSchema,
        create(GetTaskRequestSchema, { id: "no-such-task" }),
        TaskSchema,
        metadata,
      )
      .finally(() => client.close());
  };

  it("no token: UNAUTHENTICATED, in the HTTP binding's words", async () => {
    const answer = await getTask(metadataOf(undefined));
    assert.equal(answer.failure?.code, grpc.status.UNAUTHENTICATED);
    assert.equal(answer.failure?.details, "a bearer token is required: Authorization: Bearer <token>");
    assert.equal(answer.failure?.status?.code, grpc.status.UNAUTHENTICATED);
  });

  it("a wrong token: UNAUTHENTICATED, the bearer token is not valid", async () => {
    const answer = await getTask(metadataOf(`${TOKEN}x`));
    assert.equal(answer.failure?.code, grpc.status.UNAUTHENTICATED);
    assert.equal(answer.failure?.details, "the bearer token is not valid");
  });

  it("the right token: served (raw and through the SDK's service parameters)", async () => {
    assert.equal(server.token, TOKEN, "the start line names the token file");
    const answer = await getTask(metadataOf(TOKEN));
    assert.equal(answer.failure?.code, grpc.status.NOT_FOUND, "past the token check");
    const client = await sdkClient(server);
    try {
      const auth = { serviceParameters: { authorization: `Bearer ${TOKEN}` } };
      const task = taskOf(await client.sendMessage(sdkRequest("hello token"), auth));
      assert.equal(task.status?.state, SdkTaskState.TASK_STATE_COMPLETED);
      const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }), auth);
      assert.equal(got.id, task.id);
      await assert.rejects(client.getTask(GetTaskRequest.fromJSON({ id: task.id })), (error: Wire) => {
        assert.equal(error.status, grpc.status.UNAUTHENTICATED);
        return true;
      });
    } finally {
      closeSdk(client);
    }
  });
});
