// The official A2A clients, unmodified, against `serve --http` (CONTRACT 8): @a2a-js/sdk's ClientFactory from the
// agent card URL, once preferring JSON-RPC and once HTTP+JSON, and its 0.3 JSON-RPC client. The bearer token goes
// through the SDK's `fetchImpl`, hitl-prompt/v1 through `withA2AExtensions`.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  type StreamResponse,
  SubscribeToTaskRequest,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { HITL_REASONS } from "../../src/core/errors.js";
import { ADAPTER_URI, HITL_URI, type HttpServer, startHttp } from "../helpers/http-server.js";

const RUNNER = ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"];
let messages = 0;

/** A SendMessageRequest built the SDK's way, from its JSON form. */
function request(
  text: string,
  options: {
    fixture?: string;
    textLine?: boolean;
    returnImmediately?: boolean;
    answer?: { task: Task; promptId: string };
  } = {},
): SendMessageRequest {
  messages += 1;
  const metadata: Record<string, unknown> = {};
  if (options.fixture)
    metadata[ADAPTER_URI] = {
      adapter: "sandbox-agent-runner",
      mode: "plan",
      command: RUNNER,
      working_dir: options.fixture,
      timeout_seconds: 30,
      ...(options.textLine ? { input_mode: "text-line" } : {}),
    };
  const answer = options.answer;
  if (answer) metadata.hitl_response_for = { prompt_id: answer.promptId, payload: { text } };
  return SendMessageRequest.fromJSON({
    message: {
      messageId: `sdk-${messages}`,
      role: "ROLE_USER",
      parts: [{ text }],
      metadata,
      ...(answer ? { taskId: answer.task.id, contextId: answer.task.contextId } : {}),
    },
    ...(options.returnImmediately ? { configuration: { returnImmediately: true } } : {}),
  });
}

/** The SDK's send result is a Task here: every send creates or answers a task. */
function taskOf(result: unknown): Task {
  assert.ok(result && typeof result === "object" && "status" in result, JSON.stringify(result));
  return result as Task;
}

async function collect(stream: AsyncGenerator<StreamResponse>): Promise<StreamResponse[]> {
  const items: StreamResponse[] = [];
  for await (const item of stream) items.push(item);
  return items;
}

const stateOf = (item: StreamResponse | undefined) =>
  item?.payload?.$case === "statusUpdate" ? item.payload.value.status?.state : undefined;
const withHitl = { serviceParameters: ServiceParameters.create(withA2AExtensions(HITL_URI)) };

describe("the official @a2a-js/sdk clients against serve --http", () => {
  let server: HttpServer;
  let fetchImpl: typeof fetch;
  before(async () => {
    server = await startHttp(["--settle-ms", "100"]);
    fetchImpl = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("Authorization", `Bearer ${server.token}`);
      return fetch(input, { ...init, headers });
    };
  });
  after(async () => {
    await server?.close();
  });

  const clientPreferring = async (binding: "JSONRPC" | "HTTP+JSON"): Promise<Client> => {
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        preferredTransports: [binding],
      }),
    );
    const client = await factory.createFromUrl(server.url);
    assert.equal(client.transport.protocolName, binding);
    assert.equal(client.protocolVersion, "1.0");
    return client;
  };

  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    describe(`ClientFactory.createFromUrl preferring ${binding}`, () => {
      let client: Client;
      before(async () => {
        client = await clientPreferring(binding);
      });

      it("sendMessage, getTask and listTasks", async () => {
        const task = taskOf(await client.sendMessage(request("hello sdk")));
        assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
        const part = task.artifacts[0]?.parts[0]?.content;
        assert.deepEqual(part, { $case: "text", value: "hello sdk\n" });
        const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id }));
        assert.equal(got.id, task.id);
        assert.equal(got.status?.state, TaskState.TASK_STATE_COMPLETED);
        const page = await client.listTasks(ListTasksRequest.fromJSON({ pageSize: 1 }));
        assert.equal(page.tasks.length, 1);
        assert.ok(page.totalSize >= 1);
        assert.notEqual(page.nextPageToken, undefined);
      });

      it("sendMessageStream: the task first, the output, then the end", async () => {
        const items = await collect(client.sendMessageStream(request("x", { fixture: "ok" })));
        assert.equal(items[0]?.payload?.$case, "task");
        assert.equal(stateOf(items.at(-1)), TaskState.TASK_STATE_COMPLETED);
        const output = items.flatMap((item) =>
          item.payload?.$case === "artifactUpdate" ? (item.payload.value.artifact?.parts ?? []) : [],
        );
        assert.deepEqual(
          output.map((part) => (part.content?.$case === "text" ? part.content.value : "")),
          ["ok\n"],
        );
      });

      it("resubscribeTask follows a running task; cancelTask ends it", async () => {
        const running = taskOf(
          await client.sendMessage(request("hang", { fixture: "pid-hang", returnImmediately: true })),
        );
        const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: running.id }));
        const first = await stream.next();
        assert.equal(first.done, false);
        assert.equal(first.value?.payload?.$case, "task");
        const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: running.id }));
        assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
        const rest = await collect(stream);
        assert.equal(stateOf(rest.at(-1)), TaskState.TASK_STATE_CANCELED);
      });

      it("getAgentCard fetches the extended card; resubscribeTask follows a prompt and its answer (sent without contextId) to the end", async () => {
        const card = await client.getAgentCard();
        assert.equal(card.capabilities?.extendedAgentCard, true);
        const adapter = card.capabilities?.extensions.find((extension) => extension.uri === ADAPTER_URI);
        assert.equal(typeof adapter?.params?.workspace, "string", "the operator's setup (CONTRACT 8.2)");
        const asked = taskOf(await client.sendMessage(request("ask", { fixture: "ask", textLine: true }), withHitl));
        assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
        const stream = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: asked.id }));
        const first = await stream.next();
        assert.equal(first.value?.payload?.$case, "task");
        const promptId = asked.status?.message?.metadata?.[HITL_URI].prompt_id as string;
        // A2A 1.0 §3.4.3: with only a taskId, the task's context is taken.
        const answer = SendMessageRequest.fromJSON({
          message: {
            messageId: `sdk-answer-${promptId}`,
            role: "ROLE_USER",
            taskId: asked.id,
            parts: [{ text: "y" }],
            metadata: { hitl_response_for: { prompt_id: promptId, payload: { text: "y" } } },
          },
        });
        const done = taskOf(await client.sendMessage(answer, withHitl));
        assert.equal(done.status?.state, TaskState.TASK_STATE_COMPLETED, "a blocking answer waits for the end");
        assert.deepEqual(
          done.history.map((message) => message.parts[0]?.content),
          [
            { $case: "text", value: "ask" },
            { $case: "text", value: "y" },
          ],
        );
        const rest = await collect(stream);
        assert.equal(stateOf(rest.at(-1)), TaskState.TASK_STATE_COMPLETED, "the subscription saw the end");
      });

      it("a hitl round trip: the prompt, an invalid answer refused, the answer, a second answer refused", async () => {
        const asked = taskOf(await client.sendMessage(request("ask", { fixture: "ask", textLine: true }), withHitl));
        assert.equal(asked.status?.state, TaskState.TASK_STATE_INPUT_REQUIRED);
        const prompt = asked.status?.message?.metadata?.[HITL_URI];
        assert.equal(prompt.prompt, "Continue? [y/N]");
        const answer = { task: asked, promptId: prompt.prompt_id as string };
        const refusal = async (text: string) => {
          try {
            await client.sendMessage(request(text, { answer }), withHitl);
          } catch (error) {
            return error as { message: string; envelopeCode?: number; statusCode?: number };
          }
          assert.fail("the answer was taken");
        };
        const invalid = await refusal("y\u0000");
        assert.equal(invalid.message, "hitl_response_invalid");
        assert.equal(
          binding === "JSONRPC" ? invalid.envelopeCode : invalid.statusCode,
          binding === "JSONRPC" ? -32011 : 422,
        );
        const taken = taskOf(await client.sendMessage(request("y", { answer }), withHitl));
        assert.equal(taken.status?.state, TaskState.TASK_STATE_COMPLETED, "a blocking answer waits for the end");
        const again = await refusal("y");
        // The reason in words: already answered, or (when the command has ended by then) no live binding.
        const reasons = Object.values(HITL_REASONS).map((words) => `hitl_already_answered_or_unknown: ${words}`);
        assert.ok(reasons.includes(again.message), again.message);
        assert.equal(
          binding === "JSONRPC" ? again.envelopeCode : again.statusCode,
          binding === "JSONRPC" ? -32010 : 409,
        );
      });
    });
  }

  describe("the 0.3 JSON-RPC client (compat/v0_3)", () => {
    let legacy: LegacyJsonRpcTransport;
    before(() => {
      legacy = new LegacyJsonRpcTransport({ endpoint: `${server.url}/a2a/jsonrpc`, fetchImpl });
      assert.equal(legacy.protocolVersion.startsWith("0.3"), true);
    });

    it("sendMessage, sendMessageStream and getTask", async () => {
      const task = taskOf(await legacy.sendMessage(request("old client")));
      assert.equal(task.status?.state, TaskState.TASK_STATE_COMPLETED);
      const items = await collect(legacy.sendMessageStream(request("x", { fixture: "ok" })));
      assert.equal(items[0]?.payload?.$case, "task");
      assert.equal(stateOf(items.at(-1)), TaskState.TASK_STATE_COMPLETED);
      const got = await legacy.getTask(GetTaskRequest.fromJSON({ id: task.id }));
      assert.equal(got.id, task.id);
    });

    it("resubscribeTask and cancelTask", async () => {
      const running = taskOf(
        await legacy.sendMessage(request("hang", { fixture: "pid-hang", returnImmediately: true })),
      );
      const stream = legacy.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: running.id }));
      assert.equal((await stream.next()).value?.payload?.$case, "task");
      const canceled = await legacy.cancelTask(CancelTaskRequest.fromJSON({ id: running.id }));
      assert.equal(canceled.status?.state, TaskState.TASK_STATE_CANCELED);
      assert.equal(stateOf((await collect(stream)).at(-1)), TaskState.TASK_STATE_CANCELED);
    });
  });
});
