// idempotency/v1 (CONTRACT 9.1) against the built binary, over stdio and HTTP (JSON-RPC in both families, and
// HTTP+JSON): a retry runs nothing and answers the first answer byte for byte; concurrent retries wait for the first;
// another payload under the same key is -32422 / 422; answers are covered; kept answers outlive a SIGKILL with
// --state-dir (a send answered before a crash replays its answer, one never answered its task as it now is); an
// expired entry runs again; a queue_full refusal is not kept; the official SDK client gets one task.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, watch } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SendMessageRequest, type Task } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from "@a2a-js/sdk/client";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { answerParams, echoParams, envelopeParams } from "../helpers/envelopes.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";
import {
  BOTH,
  type Driver,
  everyDriver,
  HITL,
  httpRpcDriver,
  IDEMPOTENCY_URI,
  restDriver,
  stdioDriver,
  taskOfAnswer,
  taskWhen,
} from "../helpers/send-drivers.js";
import { tempDir } from "../helpers/state-dir.js";
import { messageV1 } from "../helpers/v1-requests.js";
import type { Wire } from "../helpers/wire.js";

const pidDir = mkdtempSync(join(tmpdir(), "adapter-command-idem-"));
after(() => rmSync(pidDir, { recursive: true, force: true }));
/** How many runner processes have ended so far (sleep300 writes one file each, just before it exits). */
const runs = () => readdirSync(pidDir).length;

/** A 0.3 message running the sleep300 fixture, under a new UUID key. */
function sleepMessage(text = "run once"): Record<string, unknown> {
  const message = envelopeParams("sleep300", { text }).message as Record<string, unknown>;
  return { ...message, messageId: randomUUID() };
}

describe("idempotency/v1 on every binding", () => {
  let bridge: RpcBridge;
  let server: HttpServer;
  before(async () => {
    bridge = startBridge({ env: { FIXTURE_PID_DIR: pidDir } });
    server = await startHttp([], { FIXTURE_PID_DIR: pidDir });
    await bridge.ready();
  });
  after(async () => {
    await bridge?.close();
    await server?.close();
  });
  const drivers = everyDriver(
    () => bridge,
    () => server,
  );

  for (const driver of drivers) {
    describe(driver.name, () => {
      const http = !driver.name.startsWith("stdio");

      it("a retry (keys reordered, spaces added) runs nothing and gets the first answer byte for byte", async () => {
        const message = sleepMessage();
        const before = runs();
        const first = await driver.send(message, { extensions: BOTH });
        assert.equal(first.status, 200, first.text);
        assert.equal(first.replayed, false);
        const task = taskOfAnswer(first);
        assert.equal(runs(), before + 1);
        const retry = await driver.send(message, { extensions: BOTH, spaced: true });
        assert.equal(retry.text, first.text);
        assert.equal(retry.replayed, http);
        assert.equal(taskOfAnswer(retry).id, task.id);
        assert.equal(runs(), before + 1);
      });

      it("without IDEMPOTENCY activated, the same messageId runs again", async () => {
        const message = { ...(echoParams("echo twice").message as object), messageId: randomUUID() };
        const first = taskOfAnswer(await driver.send(message));
        const again = await driver.send(message);
        assert.equal(again.replayed, false);
        assert.notEqual(taskOfAnswer(again).id, first.id);
      });

      it("another payload under the same key is -32422 (422 on HTTP) with both hashes; the first still replays", async () => {
        const message = sleepMessage();
        const first = await driver.send(message, { extensions: BOTH });
        const changed = await driver.send(
          { ...message, parts: [{ kind: "text", text: "other" }] },
          { extensions: BOTH },
        );
        assert.equal(changed.status, http ? 422 : 200, changed.text);
        let metadata: Wire;
        if (driver.name === "HTTP+JSON") {
          assert.equal(changed.body.error.status, "INVALID_ARGUMENT");
          metadata = changed.body.error.details[0].metadata;
        } else {
          const error = changed.body.error;
          assert.equal(error.code, -32422);
          metadata =
            driver.family === "1.0"
              ? error.data.find((d: Wire) => d.reason === "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD").metadata
              : error.data;
          if (driver.family === "0.3") assert.equal(error.data.code, "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD");
        }
        assert.equal(metadata.message_id, message.messageId);
        assert.match(metadata.original_request_hash, /^[0-9a-f]{64}$/);
        assert.match(metadata.submitted_request_hash, /^[0-9a-f]{64}$/);
        assert.notEqual(metadata.original_request_hash, metadata.submitted_request_hash);
        const retry = await driver.send(message, { extensions: BOTH });
        assert.equal(retry.text, first.text);
      });

      it("an error the operation gave is kept and replayed (a rejected envelope)", async () => {
        const message = sleepMessage();
        const metadata = message.metadata as Record<string, Record<string, unknown>>;
        const bad = { ...message, metadata: { [Object.keys(metadata)[0] as string]: { adapter: "nope" } } };
        const first = await driver.send(bad, { extensions: BOTH });
        assert.equal(first.status, driver.name === "HTTP+JSON" ? 400 : 200, first.text);
        const retry = await driver.send(bad, { extensions: [IDEMPOTENCY_URI] });
        assert.equal(retry.text, first.text);
        assert.equal(retry.replayed, http);
      });
    });
  }

  it("20 concurrent retries of one send start one process and all get its answer (HTTP and stdio)", async () => {
    for (const driver of [drivers[2] as Driver, drivers[0] as Driver]) {
      const message = sleepMessage("twenty");
      const before = runs();
      const answers = await Promise.all(Array.from({ length: 20 }, () => driver.send(message, { extensions: BOTH })));
      assert.equal(new Set(answers.map((answer) => answer.text)).size, 1, driver.name);
      if (driver === drivers[2]) assert.equal(answers.filter((answer) => !answer.replayed).length, 1);
      assert.equal(runs(), before + 1, driver.name);
    }
  });

  it("a retried stream follows the first one's task, marked replayed, with its closing rule (HTTP+JSON)", async () => {
    const params = { message: messageV1(sleepMessage("streamed")) };
    const headers = { "A2A-Extensions": BOTH.join(", ") };
    const before = runs();
    const first = await server.stream("/a2a/rest/message:stream", { method: "POST", body: params, headers });
    const events = [await first.next(), ...(await first.rest())];
    const taskId = events[0]?.data.task.id;
    assert.equal(events.at(-1)?.data.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    const retry = await server.stream("/a2a/rest/message:stream", { method: "POST", body: params, headers });
    assert.equal(retry.headers["idempotent-replayed"], "true");
    const again = [await retry.next(), ...(await retry.rest())];
    assert.equal(again[0]?.data.task.id, taskId);
    assert.equal(again.at(-1)?.data.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    assert.equal(runs(), before + 1);
  });

  it("a retried answer writes one line to the command and replays its success", async () => {
    const driver = drivers[2] as Driver;
    const params = envelopeParams("ask-twice", {
      envelope: { input_mode: "text-line" },
      configuration: { blocking: false },
    });
    const started = await driver.send(params.message as Record<string, unknown>, {
      extensions: [HITL],
      configuration: { returnImmediately: true },
    });
    const task = taskOfAnswer(started);
    const waiting = await taskWhen(server, task.id, (t) => t.status.state === "TASK_STATE_INPUT_REQUIRED");
    const prompt = waiting.status.message.messageId;
    const answer = { ...(answerParams(task, prompt, { text: "y" }).message as object), messageId: randomUUID() };
    const first = await driver.send(answer as Record<string, unknown>, { extensions: [...BOTH, HITL] });
    assert.equal(first.body.error, undefined, first.text);
    const retry = await driver.send(answer as Record<string, unknown>, { extensions: [...BOTH, HITL], spaced: true });
    assert.equal(retry.text, first.text);
    assert.equal(retry.replayed, true);
    const second = await taskWhen(
      server,
      task.id,
      (t) => t.status.state === "TASK_STATE_INPUT_REQUIRED" && t.status.message.messageId !== prompt,
    );
    const next = { ...(answerParams(task, second.status.message.messageId, { text: "b" }).message as object) };
    await driver.send(next as Record<string, unknown>, { extensions: [HITL] });
    const done = await taskWhen(server, task.id, (t) => t.status.state === "TASK_STATE_COMPLETED");
    const text = done.artifacts
      .find((a: Wire) => a.artifactId === "stdout")
      .parts.map((p: Wire) => p.text)
      .join("");
    assert.match(text, /answers: y,b/);
  });
});

describe("idempotency/v1 kept answers: restarts, TTL, refusals", () => {
  it("with --state-dir, a replay after SIGKILL and restart answers as before", async () => {
    const dir = tempDir("idem-state");
    const driver = httpRpcDriver(() => server, "1.0");
    let server = await startHttp(["--state-dir", dir], { FIXTURE_PID_DIR: pidDir });
    const message = sleepMessage("survives");
    const first = await driver.send(message, { extensions: BOTH });
    server.child.kill("SIGKILL");
    await server.exited;
    const before = runs();
    server = await startHttp(["--state-dir", dir], { FIXTURE_PID_DIR: pidDir });
    try {
      const retry = await driver.send(message, { extensions: BOTH, spaced: true });
      assert.equal(retry.text, first.text);
      assert.equal(retry.replayed, true);
      assert.equal(runs(), before);
    } finally {
      await server.close();
    }
  });

  /** Resolves once the file `path` holds `lines` lines (waits on the directory's changes, never on a timer). */
  async function linesIn(path: string, lines: number): Promise<void> {
    const count = () => (existsSync(path) ? readFileSync(path, "utf8").split("\n").length - 1 : 0);
    const watcher = watch(dirname(path));
    try {
      const deadline = AbortSignal.timeout(20_000);
      while (count() < lines) {
        await new Promise<void>((resolve, reject) => {
          watcher.once("change", () => resolve());
          deadline.addEventListener("abort", () => reject(new Error(`${path} never had ${lines} line(s)`)));
        });
      }
    } finally {
      watcher.close();
    }
  }

  it("a send accepted before a SIGKILL never runs again: a retry of one never answered gets the task as it now is, one answered its answer", async () => {
    const dir = tempDir("idem-crash");
    const runLog = join(tempDir("idem-runs"), "runs.log");
    const env = { FIXTURE_RUN_LOG: runLog };
    let server = await startHttp(["--state-dir", dir], env);
    const driver = httpRpcDriver(() => server, "1.0");
    const message = { ...(envelopeParams("append-hang").message as object), messageId: randomUUID() };
    const immediate = { ...(envelopeParams("append-hang").message as object), messageId: randomUUID() };
    try {
      // A blocking send, never answered: the server dies while its runner works.
      const blocking = driver.send(message, { extensions: BOTH }).catch((error: Error) => error);
      await linesIn(runLog, 1);
      const early = await driver.send(immediate, { extensions: BOTH, configuration: { returnImmediately: true } });
      assert.equal(taskOfAnswer(early).status.state, "TASK_STATE_SUBMITTED");
      await linesIn(runLog, 2);
      server.child.kill("SIGKILL");
      await server.exited;
      assert.ok((await blocking) instanceof Error, "the first send got no answer");
      server = await startHttp(["--state-dir", dir], env);
      const retry = await driver.send(message, { extensions: BOTH, spaced: true });
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.replayed, true);
      const task = taskOfAnswer(retry);
      assert.equal(task.status.state, "TASK_STATE_FAILED");
      assert.match(JSON.stringify(task.status), /runtime_restarted|restarted/);
      // The returnImmediately send was answered before the SIGKILL: its answer again, byte for byte (AC-4).
      const again = await driver.send(immediate, { extensions: BOTH, configuration: { returnImmediately: true } });
      assert.equal(again.replayed, true);
      assert.equal(again.text, early.text, "the first answer (SUBMITTED), not the task as it is now");
      assert.equal(readFileSync(runLog, "utf8").split("\n").length - 1, 2, "each send ran once");
    } finally {
      await server.close();
    }
  });

  it("a returnImmediately replay is its first answer, byte for byte, though the task has ended since", async () => {
    const server = await startHttp([], { FIXTURE_PID_DIR: pidDir });
    try {
      const driver = restDriver(() => server);
      const message = sleepMessage("current state");
      const first = await driver.send(message, { extensions: BOTH, configuration: { returnImmediately: true } });
      const task = taskOfAnswer(first);
      assert.equal(task.status.state, "TASK_STATE_SUBMITTED");
      await taskWhen(server, task.id, (current) => current.status.state === "TASK_STATE_COMPLETED");
      const retry = await driver.send(message, { extensions: BOTH, configuration: { returnImmediately: true } });
      assert.equal(retry.replayed, true);
      assert.equal(retry.text, first.text);
      assert.equal(taskOfAnswer(retry).status.state, "TASK_STATE_SUBMITTED");
    } finally {
      await server.close();
    }
  });

  it("an entry past --idempotency-ttl-seconds runs again", async () => {
    const server = await startHttp(["--idempotency-ttl-seconds", "1"], { FIXTURE_PID_DIR: pidDir });
    try {
      const driver = restDriver(() => server);
      const message = sleepMessage("expires");
      const first = taskOfAnswer(await driver.send(message, { extensions: BOTH }));
      // The TTL is the thing under test: the wait is for time itself to pass.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const again = await driver.send(message, { extensions: BOTH });
      assert.equal(again.replayed, false);
      assert.notEqual(taskOfAnswer(again).id, first.id);
    } finally {
      await server.close();
    }
  });

  it("a queue_full refusal is not kept: the retry runs once there is room", async () => {
    const bridge = startBridge({ args: ["--max-concurrent", "1"] });
    try {
      await bridge.ready();
      const hang = await bridge.call("message/send", envelopeParams("hang", { configuration: { blocking: false } }));
      // 1000 tasks wait behind it (one batch): the queue is full.
      const batch = Array.from({ length: 1000 }, (_, i) => ({
        jsonrpc: "2.0",
        id: `q${i}`,
        method: "message/send",
        params: echoParams(`queued ${i}`, { configuration: { blocking: false } }),
      }));
      bridge.sendLine(JSON.stringify(batch));
      const queued = await bridge.nextRawResponse(30_000);
      assert.equal(queued.filter((r: Wire) => r.result).length, 1000);
      const driver = stdioDriver(() => bridge, "0.3");
      const message = { ...(echoParams("after the queue").message as object), messageId: randomUUID() };
      const refused = await driver.send(message, { extensions: BOTH });
      assert.equal(refused.body.error?.data?.reason, "queue_full", refused.text);
      await bridge.call("tasks/cancel", { id: hang.id });
      // The waiting tasks run once the hang is gone; the last one ending means the queue has room again.
      await bridge.waitTask(queued[999].result.id, (task) => task.status.state === "completed");
      const ran = await driver.send(message, { extensions: BOTH });
      assert.equal(ran.body.error, undefined, ran.text);
      assert.equal(taskOfAnswer(ran).status.state, "completed");
    } finally {
      await bridge.close();
    }
  });

  it("the official @a2a-js/sdk client, retrying a send with the same messageId, gets one task", async () => {
    const server = await startHttp([], { FIXTURE_PID_DIR: pidDir });
    try {
      const fetchImpl: typeof fetch = (input, init) => {
        const headers = new Headers(init?.headers);
        headers.set("Authorization", `Bearer ${server.token}`);
        return fetch(input, { ...init, headers });
      };
      const client = await new ClientFactory(
        ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
          transports: [new JsonRpcTransportFactory({ fetchImpl })],
          cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
        }),
      ).createFromUrl(server.url);
      const message = sleepMessage("sdk retry");
      const request = SendMessageRequest.fromJSON({
        message: { ...message, kind: undefined, role: "ROLE_USER", parts: [{ text: "sdk retry" }] },
      });
      const options = { serviceParameters: ServiceParameters.create(withA2AExtensions(...BOTH)) };
      const before = runs();
      const first = (await client.sendMessage(request, options)) as Task;
      const second = (await client.sendMessage(request, options)) as Task;
      assert.equal(second.id, first.id);
      assert.equal(runs(), before + 1);
      const page = await server.call("ListTasks", {});
      assert.equal(page.totalSize, 1);
    } finally {
      await server.close();
    }
  });
});
