// Push notifications against the built binary (CONTRACT 9.3): real node:http receivers on loopback see every event of
// a task in order with the config's token and authentication; dead, failing and redirecting receivers are tried 3
// times in all and never slow the task; refused configs send nothing; 0.3 configs get 0.3 shapes; configs outlive a
// restart with --state-dir; stdio speaks the same methods.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertStreamResponse } from "../helpers/a2a-schema.js";
import { startBridge } from "../helpers/bridge.js";
import { AT_ONCE } from "../helpers/cli.js";
import { answer10, HITL_URI, type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { tempDir } from "../helpers/state-dir.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";
import type { Wire } from "../helpers/wire.js";

const fixture = (name: string, extra: Record<string, unknown> = {}) => ({ working_dir: name, ...extra });

/** The state a delivery names, whatever its kind (1.0 shapes). */
function stateOf(item: Wire): string | undefined {
  return item.task?.status.state ?? item.statusUpdate?.status.state;
}

/** The text of one artifact across the deliveries, in order. */
function artifactText(items: Wire[], name: string): string {
  return items
    .filter((item) => item.artifactUpdate?.artifact.name === name)
    .map((item) => item.artifactUpdate.artifact.parts.map((part: Wire) => part.text).join(""))
    .join("");
}

async function untilEnded(receiver: WebhookReceiver): Promise<Wire[]> {
  await receiver.waitUntil((r) => /COMPLETED|FAILED|CANCELED/.test(String(stateOf(r.body))));
  return receiver.received.map((r) => r.body);
}

describe("push notifications over HTTP (1.0)", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--push-timeout-ms", "300"]);
  });
  after(async () => {
    await server.close();
  });

  it("the card says pushNotifications: true", async () => {
    const card = (await server.fetch("/.well-known/agent-card.json")).body;
    assert.equal(card.capabilities.pushNotifications, true);
  });

  it("a receiver sees the task first, then every event in order, each with the token and authentication", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const config = {
        url: receiver.url(),
        token: "tok-123",
        authentication: { scheme: "Bearer", credentials: "cred-456" },
      };
      const sent = await server.call(
        "SendMessage",
        send10("go", {
          envelope: fixture("interleave-slow"),
          configuration: { returnImmediately: true, taskPushNotificationConfig: config },
        }),
      );
      const items = await untilEnded(receiver);
      for (const request of receiver.received) {
        assert.equal(request.method, "POST");
        assert.equal(request.path, "/hook");
        assert.match(String(request.headers["content-type"]), /^application\/a2a\+json/);
        assert.equal(request.headers["x-a2a-notification-token"], "tok-123");
        assert.equal(request.headers.authorization, "Bearer cred-456");
        assertStreamResponse(request.body, "a delivery");
      }
      assert.ok(items[0].task, "the first delivery is the Task");
      assert.equal(items[0].task.id, sent.task.id);
      const states = items.map(stateOf).filter((state) => state !== undefined);
      assert.equal(states[0], "TASK_STATE_SUBMITTED");
      assert.equal(states.at(-1), "TASK_STATE_COMPLETED");
      assert.ok(states.includes("TASK_STATE_WORKING"));
      const lines = (n: number, what: string) => Array.from({ length: n }, (_, i) => `${what} ${i + 1}\n`).join("");
      assert.equal(artifactText(items, "stdout"), lines(50, "out"));
      assert.equal(artifactText(items, "stderr"), lines(50, "err"));
      // Nothing after the end.
      assert.equal(stateOf(items.at(-1)), "TASK_STATE_COMPLETED");
    } finally {
      await receiver.close();
    }
  });

  it("a receiver that answers 500 is tried 3 times in all; the task ends on time and the config stops", async () => {
    const receiver = await WebhookReceiver.start(() => 500);
    try {
      const t0 = Date.now();
      const sent = await server.call(
        "SendMessage",
        send10("go", {
          envelope: fixture("ok"),
          configuration: { taskPushNotificationConfig: { url: receiver.url() } },
        }),
      );
      assert.equal(sent.task.status.state, "TASK_STATE_COMPLETED");
      assert.ok(Date.now() - t0 < 5000, "the blocking send was not held up by the receiver");
      await receiver.waitFor(3);
      await server.waitForStderr(/receives no more deliveries: 3 attempts failed \(last: answered 500\)/);
      assert.equal(receiver.received.length, 3, "3 attempts of the first item, then nothing");
      assert.ok(receiver.received.every((r) => r.body.task?.id === sent.task.id));
    } finally {
      await receiver.close();
    }
  });

  it("a receiver that never answers is given --push-timeout-ms per attempt, 3 attempts; the task still ends on time", async () => {
    const receiver = await WebhookReceiver.start(() => "hang");
    try {
      const t0 = Date.now();
      const sent = await server.call(
        "SendMessage",
        send10("go", {
          envelope: fixture("ok"),
          configuration: { taskPushNotificationConfig: { url: receiver.url() } },
        }),
      );
      assert.equal(sent.task.status.state, "TASK_STATE_COMPLETED");
      assert.ok(Date.now() - t0 < 5000);
      await server.waitForStderr(/3 attempts failed \(last: no answer within 300 ms\)/);
      assert.equal(receiver.received.length, 3);
      // Other requests were served meanwhile.
      assert.equal((await server.fetch("/healthz")).status, 200);
    } finally {
      await receiver.close();
    }
  });

  it("a redirect is not followed: the receiver it points to gets nothing", async () => {
    const target = await WebhookReceiver.start();
    const redirecting = await WebhookReceiver.start(() => ({ status: 307, location: target.url() }));
    try {
      await server.call(
        "SendMessage",
        send10("go", {
          envelope: fixture("ok"),
          configuration: { taskPushNotificationConfig: { url: redirecting.url() } },
        }),
      );
      await redirecting.waitFor(3);
      await server.waitForStderr(/answered 307 \(redirects are not followed\)/);
      assert.equal(target.received.length, 0);
    } finally {
      await target.close();
      await redirecting.close();
    }
  });

  describe("refused configs: -32602 with the reason, and nothing is sent", () => {
    let receiver: WebhookReceiver;
    let taskId: string;
    before(async () => {
      receiver = await WebhookReceiver.start();
      taskId = (await server.call("SendMessage", send10("hello"))).task.id;
    });
    after(async () => {
      await receiver.close();
    });

    const refused: Array<[string, () => Record<string, unknown>, RegExp]> = [
      ["a host not allowed", () => ({ url: "http://192.0.2.10/hook" }), /not allowed/],
      ["a name not allowed", () => ({ url: "http://webhook.example.org/hook" }), /not allowed/],
      ["0.0.0.0", () => ({ url: `http://0.0.0.0:${receiver.port}/hook` }), /unspecified address/],
      ["::", () => ({ url: `http://[::]:${receiver.port}/hook` }), /unspecified address/],
      ["an IPv4-mapped address not allowed", () => ({ url: "http://[::ffff:10.0.0.1]/hook" }), /not allowed/],
      ["userinfo", () => ({ url: `http://user:pw@127.0.0.1:${receiver.port}/hook` }), /userinfo/],
      ["another scheme", () => ({ url: "file:///etc/passwd" }), /http:\/\/ or https:\/\//],
      ["CR/LF in the token", () => ({ url: receiver.url(), token: "a\r\nX-Evil: 1" }), /control character/],
      [
        "CR/LF in the credentials",
        () => ({ url: receiver.url(), authentication: { scheme: "Bearer", credentials: "a\nb" } }),
        /control character/,
      ],
      [
        "a space in the scheme",
        () => ({ url: receiver.url(), authentication: { scheme: "Bearer x", credentials: "c" } }),
        /one HTTP token/,
      ],
    ];
    for (const [what, config, reason] of refused) {
      it(what, async () => {
        const response = await server.rpc("CreateTaskPushNotificationConfig", { taskId, ...config() });
        assert.equal(response.error?.code, -32602, JSON.stringify(response));
        assert.match(response.error.message, reason);
        const violations = response.error.data.find((d: Wire) => d.fieldViolations)?.fieldViolations;
        assert.ok(violations?.length > 0, "the field is named");
        // Inline, the send is refused before any task exists.
        const inline = await server.rpc(
          "SendMessage",
          send10("x", { configuration: { taskPushNotificationConfig: config() } }),
        );
        assert.equal(inline.error?.code, -32602);
        assert.match(inline.error.message, reason);
      });
    }

    it("nothing reached the receiver, and the task has no config", async () => {
      assert.equal(receiver.received.length, 0);
      const list = await server.call("ListTaskPushNotificationConfigs", { taskId });
      assert.deepEqual(list.configs, []);
    });
  });

  it("the IPv4-mapped form of loopback is loopback", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const { task } = await server.call("SendMessage", send10("hello"));
      const config = await server.call("CreateTaskPushNotificationConfig", {
        taskId: task.id,
        url: `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
      });
      assert.equal(typeof config.id, "string");
      const [request] = await receiver.waitFor(1);
      assert.equal(request?.body.task.status.state, "TASK_STATE_COMPLETED", "a config on an ended task gets the Task");
    } finally {
      await receiver.close();
    }
  });

  it("a config given inline with an answer is kept for the answered task, from the answer on", async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const headers = { "A2A-Extensions": HITL_URI };
      const asked = await server.call(
        "SendMessage",
        send10("ask", { envelope: fixture("ask", { input_mode: "text-line" }) }),
        headers,
      );
      assert.equal(asked.task.status.state, "TASK_STATE_INPUT_REQUIRED");
      const promptId = asked.task.status.message.metadata[HITL_URI].prompt_id;
      const answer = answer10(asked.task, promptId, { text: "y" });
      answer.configuration = { taskPushNotificationConfig: { url: receiver.url(), token: "on-answer" } };
      await server.call("SendMessage", answer, headers);
      const items = await untilEnded(receiver);
      assert.equal(items[0].task.id, asked.task.id);
      assert.equal(stateOf(items.at(-1)), "TASK_STATE_COMPLETED");
      assert.equal(receiver.received[0]?.headers["x-a2a-notification-token"], "on-answer");
      const list = await server.call("ListTaskPushNotificationConfigs", { taskId: asked.task.id });
      assert.equal(list.configs.length, 1);
    } finally {
      await receiver.close();
    }
  });

  it("at most 16 configs a task; the 17th is -32602; replacing one by its id does not count", async () => {
    const { task } = await server.call("SendMessage", send10("hello"));
    for (let i = 0; i < 16; i++)
      await server.call("CreateTaskPushNotificationConfig", {
        taskId: task.id,
        id: `c${i}`,
        url: "http://127.0.0.1:9/x",
      });
    const again = await server.call("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      id: "c3",
      url: "http://127.0.0.1:9/y",
    });
    assert.equal(again.url, "http://127.0.0.1:9/y");
    const response = await server.rpc("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      url: "http://127.0.0.1:9/z",
    });
    assert.equal(response.error?.code, -32602);
    assert.match(response.error.message, /16 push notification configs/);
    const list = await server.call("ListTaskPushNotificationConfigs", { taskId: task.id, pageSize: 10 });
    assert.equal(list.configs.length, 10);
    assert.notEqual(list.nextPageToken, "");
    const rest = await server.call("ListTaskPushNotificationConfigs", {
      taskId: task.id,
      pageToken: list.nextPageToken,
    });
    assert.equal(rest.configs.length, 6);
    assert.equal(rest.nextPageToken, "");
  });

  it("an unknown task is -32001 on every method; REST answers 404", async () => {
    for (const [method, params] of [
      ["CreateTaskPushNotificationConfig", { taskId: "nope", url: "http://127.0.0.1:9/" }],
      ["GetTaskPushNotificationConfig", { taskId: "nope", id: "x" }],
      ["ListTaskPushNotificationConfigs", { taskId: "nope" }],
      ["DeleteTaskPushNotificationConfig", { taskId: "nope", id: "x" }],
    ] as const) {
      const response = await server.rpc(method, params);
      assert.equal(response.error?.code, -32001, `${method}: ${JSON.stringify(response)}`);
    }
    const rest = await server.fetch("/a2a/rest/tasks/nope/pushNotificationConfigs");
    assert.equal(rest.status, 404);
  });
});

// Each test has its own server or bridge and receiver: they run at once.
describe("push notifications: REST, 0.3, stdio, restart", { concurrency: AT_ONCE }, () => {
  it("REST: POST, GET, list, DELETE under /a2a/rest/tasks/{id}/pushNotificationConfigs", async () => {
    const server = await startHttp();
    const receiver = await WebhookReceiver.start();
    try {
      const { task } = await server.call("SendMessage", send10("hello"));
      const base = `/a2a/rest/tasks/${task.id}/pushNotificationConfigs`;
      const created = await server.fetch(base, { method: "POST", body: { id: "r1", url: receiver.url(), token: "t" } });
      assert.equal(created.status, 200, created.text);
      assert.deepEqual(created.body, { id: "r1", taskId: task.id, url: receiver.url(), token: "t" });
      assert.deepEqual((await server.fetch(`${base}/r1`)).body, created.body);
      assert.deepEqual((await server.fetch(base)).body, { configs: [created.body], nextPageToken: "" });
      assert.equal((await server.fetch(`${base}/r1`, { method: "DELETE" })).status, 200);
      assert.equal((await server.fetch(`${base}/r1`, { method: "DELETE" })).status, 200, "delete is idempotent");
      assert.equal((await server.fetch(`${base}/r1`)).status, 404);
      const bad = await server.fetch(base, { method: "POST", body: { url: "http://0.0.0.0/" } });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.status, "INVALID_ARGUMENT");
      const [delivered] = await receiver.waitFor(1);
      assert.equal(delivered?.body.task.id, task.id);
    } finally {
      await receiver.close();
      await server.close();
    }
  });

  it("0.3: set, get, list, delete in 0.3 shapes; deliveries in 0.3 shapes", async () => {
    const server = await startHttp();
    const receiver = await WebhookReceiver.start();
    try {
      const task = await server.call("message/send", {
        message: {
          kind: "message",
          messageId: "p03",
          role: "user",
          parts: [{ kind: "text", text: "go" }],
          metadata: {
            "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1": {
              adapter: "sandbox-agent-runner",
              mode: "plan",
              command: [
                "node",
                ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
                "--request",
                ".aiwg/ops/runs/req.json",
              ],
              working_dir: "ok",
              timeout_seconds: 30,
            },
          },
        },
        configuration: {
          blocking: false,
          pushNotificationConfig: {
            url: receiver.url(),
            authentication: { schemes: ["Basic"], credentials: "dXNlcg==" },
          },
        },
      });
      await receiver.waitUntil((r) => r.body?.final === true);
      const bodies = receiver.received.map((r) => r.body);
      assert.equal(bodies[0].kind, "task");
      assert.ok(bodies.slice(1).every((b: Wire) => b.kind === "status-update" || b.kind === "artifact-update"));
      assert.equal(receiver.received[0]?.headers.authorization, "Basic dXNlcg==");
      const set = await server.call("tasks/pushNotificationConfig/set", {
        taskId: task.id,
        pushNotificationConfig: { id: "s1", url: receiver.url("/two"), token: "zz" },
      });
      assert.deepEqual(set, {
        taskId: task.id,
        pushNotificationConfig: { id: "s1", url: receiver.url("/two"), token: "zz" },
      });
      const got = await server.call("tasks/pushNotificationConfig/get", {
        id: task.id,
        pushNotificationConfigId: "s1",
      });
      assert.deepEqual(got, set);
      const list = await server.call("tasks/pushNotificationConfig/list", { id: task.id });
      assert.equal(list.length, 2);
      assert.equal(
        await server.call("tasks/pushNotificationConfig/delete", { id: task.id, pushNotificationConfigId: "s1" }),
        null,
      );
      assert.equal((await server.call("tasks/pushNotificationConfig/list", { id: task.id })).length, 1);
    } finally {
      await receiver.close();
      await server.close();
    }
  });

  it("stdio: the same methods, and deliveries, on serve --stdio", async () => {
    const receiver = await WebhookReceiver.start();
    const bridge = startBridge();
    try {
      const sent = await bridge.call("SendMessage", send10("hi from stdio"));
      const config = await bridge.call("CreateTaskPushNotificationConfig", {
        taskId: sent.task.id,
        url: receiver.url(),
      });
      const [delivered] = await receiver.waitFor(1);
      assert.equal(delivered?.body.task.id, sent.task.id);
      const listed = await bridge.call("ListTaskPushNotificationConfigs", { taskId: sent.task.id });
      assert.deepEqual(listed.configs, [config]);
      const refused = await bridge.callError("CreateTaskPushNotificationConfig", {
        taskId: sent.task.id,
        url: "http://203.0.113.5/",
      });
      assert.equal(refused.code, -32602);
    } finally {
      await bridge.close();
      await receiver.close();
    }
  });

  it("--state-dir: configs outlive a restart; deleting the task's config after it works too", async () => {
    const dir = tempDir();
    let server = await startHttp(["--state-dir", dir]);
    const { task } = await server.call("SendMessage", send10("keep me"));
    const config = await server.call("CreateTaskPushNotificationConfig", {
      taskId: task.id,
      id: "kept",
      url: "http://127.0.0.1:9/hook",
      authentication: { scheme: "Bearer", credentials: "c" },
    });
    await server.close();
    server = await startHttp(["--state-dir", dir]);
    try {
      assert.deepEqual(await server.call("GetTaskPushNotificationConfig", { taskId: task.id, id: "kept" }), config);
      await server.call("DeleteTaskPushNotificationConfig", { taskId: task.id, id: "kept" });
      const response = await server.rpc("GetTaskPushNotificationConfig", { taskId: task.id, id: "kept" });
      assert.equal(response.error?.code, -32001);
    } finally {
      await server.close();
    }
  });

  it("at shutdown, deliveries still pending after the budget are dropped and counted; the exit is on time", async () => {
    const receiver = await WebhookReceiver.start(() => "hang");
    const server = await startHttp(["--push-timeout-ms", "20000"]);
    try {
      await server.call(
        "SendMessage",
        send10("go", {
          envelope: fixture("pid-hang"),
          configuration: { returnImmediately: true, taskPushNotificationConfig: { url: receiver.url() } },
        }),
      );
      await receiver.waitFor(1);
      const exit = await server.close();
      assert.equal(exit.code, 0);
      assert.ok(exit.ms < 5000, `exited in ${exit.ms} ms`);
      assert.match(server.stderr, /push: \d+ delivery\(ies\) still pending at shutdown were dropped/);
    } finally {
      await receiver.close();
    }
  });

  it("--allow-webhook-host with a scheme or 0.0.0.0 is a usage error (exit 2)", async () => {
    for (const value of ["http://example.com", "0.0.0.0"]) {
      await assert.rejects(startHttp(["--allow-webhook-host", value]), /exited \(2\)/);
    }
  });
});
