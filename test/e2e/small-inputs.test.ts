// The small input rules of docs/security.md ("Bounded answers, a send run once, and small inputs"), on every binding
// that takes them: an empty messageId is refused (it would slip past idempotency/v1), a long one is cut in the log,
// a push-config list's page token is good only for its own task, and pageSize 0 is refused on every list.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { echoParams } from "../helpers/envelopes.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";
import { BOTH, type Driver, httpRpcDriver, restDriver, stdioDriver } from "../helpers/send-drivers.js";

let bridge: RpcBridge;
let server: HttpServer;
before(async () => {
  bridge = startBridge();
  server = await startHttp();
});
after(async () => {
  bridge.close();
  await server.close();
});

describe('messageId "" is refused on every send, under idempotency/v1 or not', () => {
  const drivers: Driver[] = [
    stdioDriver(() => bridge, "0.3"),
    stdioDriver(() => bridge, "1.0"),
    httpRpcDriver(() => server, "0.3"),
    httpRpcDriver(() => server, "1.0"),
    restDriver(() => server),
  ];
  for (const driver of drivers)
    for (const extensions of [BOTH, undefined])
      it(`${driver.name}${extensions ? ", idempotency activated" : ""}: -32602 naming /message/messageId`, async () => {
        const message = { ...(echoParams("empty key").message as object), messageId: "" };
        const answer = await driver.send(message, extensions ? { extensions } : {});
        if (driver.name === "HTTP+JSON") assert.equal(answer.status, 400, answer.text);
        else assert.equal(answer.body.error?.code, -32602, answer.text);
        assert.match(answer.text, /expected a non-empty messageId, found an empty string/);
        assert.match(answer.text, /\/message\/messageId/);
      });
});

describe("a long messageId is cut in the log", () => {
  it("a 200 000-character key that is not a UUID: its first 100 characters and its length, never all of it", async () => {
    const key = "k".repeat(200_000);
    const driver = stdioDriver(() => bridge, "1.0");
    const answer = await driver.send(
      { ...(echoParams("long key").message as object), messageId: key },
      { extensions: BOTH },
    );
    assert.equal(answer.body.result?.task?.status?.state, "TASK_STATE_COMPLETED", answer.text.slice(0, 300));
    await bridge.waitStderr(/is not a UUID/);
    const line = bridge.stderr.split("\n").find((text) => text.includes("is not a UUID")) as string;
    assert.match(line, /messageId "k{100}"… \(200000 characters\) is not a UUID/);
    assert.ok(line.length < 300, `a log line of ${line.length} characters`);
  });
});

describe("push config lists: one pageSize rule, tokens bound to their task", () => {
  const taskIds: string[] = [];
  before(async () => {
    for (const text of ["first", "second"]) {
      const task = await server.call("SendMessage", { message: { ...(echoParams(text).message as object) } });
      taskIds.push(task.task?.id ?? task.id);
    }
    for (const taskId of taskIds)
      for (const id of ["a", "b", "c"])
        await server.call("CreateTaskPushNotificationConfig", { taskId, id, url: "http://127.0.0.1:9/hook" });
  });

  it("a page's token walks its own task's configs and is refused on another task's list", async () => {
    const [first, second] = taskIds as [string, string];
    const page = await server.call("ListTaskPushNotificationConfigs", { taskId: first, pageSize: 2 });
    assert.deepEqual(
      page.configs.map((config: { id: string }) => config.id),
      ["a", "b"],
    );
    assert.notEqual(page.nextPageToken, "");
    const rest = await server.call("ListTaskPushNotificationConfigs", { taskId: first, pageToken: page.nextPageToken });
    assert.deepEqual(
      rest.configs.map((config: { id: string }) => config.id),
      ["c"],
    );
    assert.equal(rest.nextPageToken, "");
    const elsewhere = await server.rpc("ListTaskPushNotificationConfigs", {
      taskId: second,
      pageToken: page.nextPageToken,
    });
    assert.equal(elsewhere.error?.code, -32602, JSON.stringify(elsewhere));
    assert.match(elsewhere.error.message, /pageToken from a previous page of task/);
    // A bare offset, as tokens once were, is no token at all.
    const bare = await server.rpc("ListTaskPushNotificationConfigs", { taskId: first, pageToken: "2" });
    assert.equal(bare.error?.code, -32602, JSON.stringify(bare));
  });

  for (const [method, params] of [
    ["ListTasks", {}],
    ["ListTaskPushNotificationConfigs", { taskId: "" }],
  ] as const)
    for (const pageSize of [0, 101, 1.5])
      it(`${method} refuses pageSize ${pageSize} with -32602`, async () => {
        const taskId = method === "ListTasks" ? {} : { taskId: taskIds[0] };
        const response = await server.rpc(method, { ...params, ...taskId, pageSize });
        assert.equal(response.error?.code, -32602, JSON.stringify(response));
        assert.match(JSON.stringify(response.error), /pageSize/);
      });
});
