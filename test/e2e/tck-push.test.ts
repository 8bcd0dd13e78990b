// The A2A TCK's push notification checks (a2aproject/a2a-tck, branch 1.0-dev, tests/compatibility/core_operations/
// test_push_notifications.py, requirements in tck/requirements/push_notifications.py), ported: each test is named by
// the requirement it proves and runs on both HTTP bindings (JSON-RPC and HTTP+JSON), as the TCK's ALL_TRANSPORTS
// does. As in the TCK, the CRUD checks make configs for https://example.com/tck-push-webhook on a completed task,
// so the server allows that host (--allow-webhook-host example.com): delivery there may fail; create, get, list and
// delete must not. The delivery checks use a loopback receiver. Departure: the TCK ends its task with a follow-up
// message to the task; here a further message to a task is -32004 unless it answers a prompt (CONTRACT 7.1), so the
// task is one that ends by itself, and the config is given inline with the send, as the TCK does.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertStreamResponse } from "../helpers/a2a-schema.js";
import { type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";
import type { Wire } from "../helpers/wire.js";

const AUTH = { scheme: "Bearer", credentials: "tck-test-token-auth" };
let ids = 0;
const tckId = (prefix: string) => `tck-${prefix}-${process.pid}-${++ids}`;
const pushConfig = () => ({ id: tckId("push"), url: "https://example.com/tck-push-webhook" });

/** The TCK's transport client, for one binding: each call answers `{ ok, result | error }`. */
interface Client {
  sendMessage(params: Wire): Promise<{ ok: boolean; result: Wire }>;
  create(taskId: string, config: Wire): Promise<{ ok: boolean; result: Wire }>;
  get(taskId: string, id: string): Promise<{ ok: boolean; result: Wire }>;
  list(taskId: string): Promise<{ ok: boolean; result: Wire }>;
  remove(taskId: string, id: string): Promise<{ ok: boolean; result: Wire }>;
}

function jsonRpcClient(server: HttpServer): Client {
  const call = async (method: string, params: Wire) => {
    const response = await server.rpc(method, params, { "A2A-Version": "1.0" });
    return { ok: response.error === undefined, result: response.result ?? response.error };
  };
  return {
    sendMessage: (params) => call("SendMessage", params),
    // The TCK's JSON-RPC client sends snake_case task_id beside the config's fields.
    create: (taskId, config) => call("CreateTaskPushNotificationConfig", { task_id: taskId, ...config }),
    get: (taskId, id) => call("GetTaskPushNotificationConfig", { task_id: taskId, id }),
    list: (taskId) => call("ListTaskPushNotificationConfigs", { task_id: taskId }),
    remove: (taskId, id) => call("DeleteTaskPushNotificationConfig", { task_id: taskId, id }),
  };
}

function restClient(server: HttpServer): Client {
  const call = async (method: string, path: string, body?: Wire) => {
    const answer = await server.fetch(`/a2a/rest${path}`, {
      method,
      headers: { "A2A-Version": "1.0" },
      ...(body === undefined ? {} : { body }),
    });
    return { ok: answer.status >= 200 && answer.status < 300, result: answer.body };
  };
  const configs = (taskId: string) => `/tasks/${encodeURIComponent(taskId)}/pushNotificationConfigs`;
  return {
    sendMessage: (params) => call("POST", "/message:send", params),
    create: (taskId, config) => call("POST", configs(taskId), config),
    get: (taskId, id) => call("GET", `${configs(taskId)}/${encodeURIComponent(id)}`),
    list: (taskId) => call("GET", configs(taskId)),
    remove: (taskId, id) => call("DELETE", `${configs(taskId)}/${encodeURIComponent(id)}`),
  };
}

/** The TCK's create_completed_task: a task that has reached TASK_STATE_COMPLETED. */
async function completedTask(client: Client): Promise<string> {
  const sent = await client.sendMessage(send10("TCK prerequisite task creation"));
  assert.ok(sent.ok, JSON.stringify(sent.result));
  assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
  return sent.result.task.id;
}

describe("A2A TCK push notification requirements (PUSH-*)", () => {
  let server: HttpServer;
  let receiver: WebhookReceiver;
  before(async () => {
    server = await startHttp(["--allow-webhook-host", "example.com", "--push-timeout-ms", "1000"]);
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
  });

  it("the card declares capabilities.pushNotifications, so no check is skipped", async () => {
    const card = (await server.fetch("/.well-known/agent-card.json")).body;
    assert.equal(card.capabilities.pushNotifications, true);
  });

  for (const [transport, clientOf] of [
    ["JSONRPC", jsonRpcClient],
    ["HTTP+JSON", restClient],
  ] as const) {
    describe(transport, () => {
      let client: Client;
      before(() => {
        client = clientOf(server);
      });

      it("PUSH-CREATE-001: CreatePushNotificationConfig returns the config (MUST)", async () => {
        const taskId = await completedTask(client);
        const config = pushConfig();
        const created = await client.create(taskId, config);
        assert.ok(created.ok, JSON.stringify(created.result));
        assert.equal(created.result.id, config.id);
        assert.equal(created.result.taskId, taskId);
        assert.equal(created.result.url, config.url);
      });

      it("PUSH-CREATE-002: the config persists and can be read after creation (MUST)", async () => {
        const taskId = await completedTask(client);
        const config = pushConfig();
        assert.ok((await client.create(taskId, config)).ok);
        const got = await client.get(taskId, config.id);
        assert.ok(got.ok, JSON.stringify(got.result));
      });

      it("PUSH-GET-001: GetPushNotificationConfig returns the config's details (MUST)", async () => {
        const taskId = await completedTask(client);
        const config = { ...pushConfig(), token: "tck-token", authentication: AUTH };
        assert.ok((await client.create(taskId, config)).ok);
        const got = await client.get(taskId, config.id);
        assert.ok(got.ok, JSON.stringify(got.result));
        assert.deepEqual(got.result, { ...config, taskId });
      });

      it("PUSH-GET-002: GetPushNotificationConfig of a config that does not exist is an error (MUST)", async () => {
        const taskId = await completedTask(client);
        const got = await client.get(taskId, tckId("nonexistent"));
        assert.equal(got.ok, false);
        if (transport === "JSONRPC") assert.equal(got.result.code, -32001);
        else assert.equal(got.result.error.code, 404);
      });

      it("PUSH-LIST-001: ListPushNotificationConfigs includes the config (MUST)", async () => {
        const taskId = await completedTask(client);
        const config = pushConfig();
        assert.ok((await client.create(taskId, config)).ok);
        const listed = await client.list(taskId);
        assert.ok(listed.ok, JSON.stringify(listed.result));
        assert.deepEqual(
          listed.result.configs.map((c: Wire) => c.id),
          [config.id],
        );
      });

      it("PUSH-DEL-001: DeletePushNotificationConfig removes the config (MUST)", async () => {
        const taskId = await completedTask(client);
        const config = pushConfig();
        assert.ok((await client.create(taskId, config)).ok);
        assert.ok((await client.remove(taskId, config.id)).ok);
        assert.equal((await client.get(taskId, config.id)).ok, false, "gone after deletion");
      });

      it("PUSH-DEL-002: deleting a deleted config succeeds (idempotent, MUST)", async () => {
        const taskId = await completedTask(client);
        const config = pushConfig();
        assert.ok((await client.create(taskId, config)).ok);
        await client.remove(taskId, config.id);
        const again = await client.remove(taskId, config.id);
        assert.ok(again.ok, JSON.stringify(again.result));
      });

      /** The TCK's _setup_push_and_trigger: a send with the config inline; the first delivery. */
      const deliver = async () => {
        const path = `/tck-${transport}-${++ids}`;
        const config = { id: tckId("push"), url: receiver.url(path), authentication: AUTH };
        const sent = await client.sendMessage(
          send10("TCK prerequisite task creation", { configuration: { taskPushNotificationConfig: config } }),
        );
        assert.ok(sent.ok, JSON.stringify(sent.result));
        return receiver.waitUntil((r) => r.path === path);
      };

      it("PUSH-DELIVER-001: webhook requests carry the configured authentication (MUST)", async () => {
        const request = await deliver();
        assert.equal(request.headers.authorization, `${AUTH.scheme} ${AUTH.credentials}`);
      });

      it("PUSH-DELIVER-002: delivery is attempted at least once per webhook (MUST)", async () => {
        const request = await deliver();
        assert.equal(request.method, "POST");
      });

      it("PUSH-DELIVER-003: the payload is a StreamResponse with exactly one member (MUST)", async () => {
        const request = await deliver();
        assert.notEqual(request.body, undefined, `JSON body: ${request.text}`);
        assertStreamResponse(request.body, "the webhook payload");
      });
    });
  }

  it("deliveries to example.com may fail (here it does not resolve): the server says so and goes on", async () => {
    await server.waitForStderr(/\(https:\/\/example\.com\) receives no more deliveries: 3 attempts failed/);
    assert.equal((await server.fetch("/healthz")).status, 200);
  });
});
