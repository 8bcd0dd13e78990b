// The official @a2a-js/sdk clients' push-config methods against serve --http (CONTRACT 9.3): the 1.0 client over
// JSON-RPC and over HTTP+JSON, and the 0.3 JSON-RPC client; a config made through each is delivered to.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  ListTaskPushNotificationConfigsRequest,
  SendMessageRequest,
  type Task,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { type HttpServer, startHttp } from "../helpers/http-server.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";

let messages = 0;
const hello = () => {
  messages += 1;
  return SendMessageRequest.fromJSON({
    message: { messageId: `push-sdk-${messages}`, role: "ROLE_USER", parts: [{ text: "hello push" }] },
  });
};

describe("the official @a2a-js/sdk clients' push notification config methods", () => {
  let server: HttpServer;
  let receiver: WebhookReceiver;
  let fetchImpl: typeof fetch;
  before(async () => {
    server = await startHttp();
    receiver = await WebhookReceiver.start();
    fetchImpl = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("Authorization", `Bearer ${server.token}`);
      return fetch(input, { ...init, headers });
    };
  });
  after(async () => {
    await receiver?.close();
    await server?.close();
  });

  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    it(`1.0 client preferring ${binding}: create, get, list, delete; the config is delivered to`, async () => {
      const factory = new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
          preferredTransports: [binding],
        }),
      );
      const client = await factory.createFromUrl(server.url);
      assert.equal(client.transport.protocolName, binding);
      const task = (await client.sendMessage(hello())) as Task;
      const path = `/${binding}`;
      const created = await client.createTaskPushNotificationConfig(
        TaskPushNotificationConfig.fromJSON({
          taskId: task.id,
          id: "sdk-1",
          url: receiver.url(path),
          token: "sdk-token",
          authentication: { scheme: "Bearer", credentials: "sdk-cred" },
        }),
      );
      assert.equal(created.id, "sdk-1");
      assert.equal(created.taskId, task.id);
      assert.equal(created.url, receiver.url(path));
      assert.equal(created.token, "sdk-token");
      assert.deepEqual(created.authentication, { scheme: "Bearer", credentials: "sdk-cred" });
      const got = await client.getTaskPushNotificationConfig(
        GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "sdk-1" }),
      );
      assert.deepEqual(got, created);
      const listed = await client.listTaskPushNotificationConfig(
        ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
      );
      assert.deepEqual(listed.configs, [created]);
      const delivered = await receiver.waitUntil((r) => r.path === path);
      assert.equal(delivered.body.task.id, task.id);
      assert.equal(delivered.headers["x-a2a-notification-token"], "sdk-token");
      await client.deleteTaskPushNotificationConfig(
        DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "sdk-1" }),
      );
      await client.deleteTaskPushNotificationConfig(
        DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "sdk-1" }),
      );
      const after = await client.listTaskPushNotificationConfig(
        ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
      );
      assert.deepEqual(after.configs, []);
      await assert.rejects(
        client.getTaskPushNotificationConfig(
          GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "sdk-1" }),
        ),
      );
    });
  }

  it("0.3 client (LegacyJsonRpcTransport): set, get, list, delete", async () => {
    const legacy = new LegacyJsonRpcTransport({ endpoint: `${server.url}/a2a/jsonrpc`, fetchImpl });
    const task = (await legacy.sendMessage(hello())) as Task;
    const created = await legacy.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: "old-1", url: receiver.url("/old"), token: "t03" }),
    );
    assert.equal(created.id, "old-1");
    assert.equal(created.url, receiver.url("/old"));
    const got = await legacy.getTaskPushNotificationConfig(
      GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "old-1" }),
    );
    assert.equal(got.token, "t03");
    const listed = await legacy.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
    );
    assert.deepEqual(
      listed.configs.map((config) => config.id),
      ["old-1"],
    );
    const delivered = await receiver.waitUntil((r) => r.path === "/old");
    assert.equal(delivered.body.kind, "task", "a config made through 0.3 gets 0.3 shapes");
    await legacy.deleteTaskPushNotificationConfig(
      DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "old-1" }),
    );
    const after = await legacy.listTaskPushNotificationConfig(
      ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }),
    );
    assert.deepEqual(after.configs, []);
  });
});
