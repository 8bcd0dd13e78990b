// idempotency/v1 (CONTRACT 9.1) against the built binary, the rules a retry's answer follows on every binding:
// an answer that was given is given again byte for byte, also once its task has moved on (a returnImmediately
// send's, an answer to a prompt's); a kept answer whose task --keep-tasks let go says so plainly, never as a
// replayed 404; under --require-extensions a messageId that is not a UUID is refused before anything runs (§7.1).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import * as grpc from "@grpc/grpc-js";
import { SendMessageRequestSchema, SendMessageResponseSchema } from "../../src/grpc/gen/a2a_pb.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { answerParams, echoParams, envelopeParams } from "../helpers/envelopes.js";
import { failureOf, metadataOf, SERVICE } from "../helpers/grpc-client.js";
import { assertStatus, type HttpServer, startHttp } from "../helpers/http-server.js";
import {
  BOTH,
  type Driver,
  everyDriver,
  HITL,
  httpRpcDriver,
  RUNTIME_URI,
  restDriver,
  type SendAnswer,
  stdioDriver,
  taskOfAnswer,
  taskWhen,
} from "../helpers/send-drivers.js";
import { messageV1 } from "../helpers/v1-requests.js";
import type { Wire } from "../helpers/wire.js";

/** The gRPC port of a server started with --grpc-port. */
const grpcTarget = (server: HttpServer) => (server.start as unknown as { grpc: string }).grpc;

/**
 * SendMessage over gRPC as a Driver: `text` is the answer's protobuf bytes (base64), so two answers compare byte for
 * byte; `body` the answer as ProtoJSON (`{ task }`), or `{ error }` with the failure's code and details.
 */
function grpcDriver(server: () => HttpServer): Driver & { close(): void } {
  let client: grpc.Client | undefined;
  return {
    name: "gRPC",
    family: "1.0",
    close: () => client?.close(),
    send(message, options = {}) {
      client ??= new grpc.Client(grpcTarget(server()), grpc.credentials.createInsecure());
      const { configuration } = options;
      const request = fromJson(SendMessageRequestSchema, {
        message: messageV1(message),
        ...(configuration ? { configuration } : {}),
      } as JsonValue);
      const extensions: Record<string, string> = options.extensions
        ? { "a2a-extensions": options.extensions.join(", ") }
        : {};
      return new Promise<SendAnswer>((resolve) => {
        let replayed = false;
        const call = (client as grpc.Client).makeUnaryRequest(
          `/${SERVICE}/SendMessage`,
          (bytes: Buffer) => bytes,
          (bytes: Buffer) => bytes,
          Buffer.from(toBinary(SendMessageRequestSchema, request)),
          metadataOf(server().token, extensions),
          { deadline: Date.now() + 30_000 },
          (error, bytes) => {
            if (error) {
              const failure = failureOf(error);
              const body = { error: { code: failure.code, details: failure.details, failure } };
              return resolve({ status: failure.code, text: error.details, body, replayed });
            }
            const answer = fromBinary(SendMessageResponseSchema, bytes as Buffer);
            const body = toJson(SendMessageResponseSchema, answer) as Wire;
            resolve({ status: 200, text: (bytes as Buffer).toString("base64"), body, replayed });
          },
        );
        call.on("metadata", (metadata: grpc.Metadata) => {
          replayed = metadata.get("idempotent-replayed")[0] === "true";
        });
      });
    },
  };
}

/** A 0.3 message running the sleep300 fixture (prints its pid, sleeps 300 ms), under a new UUID key. */
function sleepMessage(text: string): Record<string, unknown> {
  return { ...(envelopeParams("sleep300", { text }).message as object), messageId: randomUUID() };
}

/** `configuration` that answers at once, in the driver's family. */
const immediately = (driver: Driver) => (driver.family === "0.3" ? { blocking: false } : { returnImmediately: true });

describe("a replay gives the first answer byte for byte, whatever the task did since", () => {
  let server: HttpServer;
  let bridge: RpcBridge;
  const grpcSends = grpcDriver(() => server);
  before(async () => {
    server = await startHttp(["--grpc-port", "0"]);
    bridge = startBridge();
    await bridge.ready();
  });
  after(async () => {
    grpcSends.close();
    await server?.close();
    await bridge?.close();
  });
  const overHttp: Driver[] = [
    httpRpcDriver(() => server, "1.0"),
    httpRpcDriver(() => server, "0.3"),
    restDriver(() => server),
    grpcSends,
  ];

  for (const driver of [...overHttp, stdioDriver(() => bridge, "1.0")]) {
    const stdio = driver.name.startsWith("stdio");
    it(`${driver.name}: a returnImmediately send's retry after its task completed is the first answer (SUBMITTED) again`, async () => {
      const message = sleepMessage("immediately");
      const first = await driver.send(message, { extensions: BOTH, configuration: immediately(driver) });
      assert.equal(first.status, 200, first.text);
      const task = taskOfAnswer(first);
      assert.match(task.status.state, /submitted|working/i);
      if (stdio) await bridge.waitTask(task.id, (now) => now.status.state === "completed");
      else await taskWhen(server, task.id, (now) => now.status.state === "TASK_STATE_COMPLETED");
      const retry = await driver.send(message, {
        extensions: BOTH,
        configuration: immediately(driver),
        spaced: driver.name !== "gRPC",
      });
      assert.equal(retry.text, first.text, "the first answer, byte for byte, not the task as it is now");
      assert.equal(retry.replayed, !stdio);
    });
  }

  for (const driver of overHttp)
    it(`${driver.name}: a retried answer to a prompt, after the task went on to its end, is the first answer again`, async () => {
      const started = await restDriver(() => server).send(
        envelopeParams("ask-twice", { envelope: { input_mode: "text-line" } }).message as Record<string, unknown>,
        { extensions: [HITL], configuration: { returnImmediately: true } },
      );
      const task = taskOfAnswer(started);
      const asked = await taskWhen(server, task.id, (t) => t.status.state === "TASK_STATE_INPUT_REQUIRED");
      const prompt = asked.status.message.messageId;
      const answer = { ...(answerParams(task, prompt, { text: "a" }).message as object), messageId: randomUUID() };
      const first = await driver.send(answer, { extensions: [...BOTH, HITL] });
      assert.equal(first.status, 200, first.text);
      assert.match(taskOfAnswer(first).status.state, /input.required/i, "a blocking answer waits for the next prompt");
      const second = await taskWhen(
        server,
        task.id,
        (t) => t.status.state === "TASK_STATE_INPUT_REQUIRED" && t.status.message.messageId !== prompt,
      );
      const next = answerParams(task, second.status.message.messageId, { text: "b" }).message as object;
      await restDriver(() => server).send({ ...next, messageId: randomUUID() }, { extensions: [HITL] });
      await taskWhen(server, task.id, (t) => t.status.state === "TASK_STATE_COMPLETED");
      const retry = await driver.send(answer, { extensions: [...BOTH, HITL], spaced: driver.name !== "gRPC" });
      assert.equal(retry.text, first.text, "the first answer, byte for byte, not the completed task");
      assert.equal(retry.replayed, true);
    });
});

describe("a kept answer whose task --keep-tasks let go", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--keep-tasks", "1"], { FIXTURE_BYTES: String(2 * 1024 * 1024) });
  });
  after(async () => {
    await server?.close();
  });
  const headers = { "A2A-Extensions": BOTH.join(", ") };

  /** Runs a task to its end without idempotency, so --keep-tasks 1 lets every earlier ended task go. */
  async function another(): Promise<string> {
    const ran = await server.call("SendMessage", { message: messageV1(echoParams("push out").message) });
    assert.equal(ran.task.status.state, "TASK_STATE_COMPLETED");
    return ran.task.id;
  }

  /** The retry is refused in words, as a new answer (no Idempotent-Replayed), and nothing ran again. */
  async function assertForgotten(
    retry: { status: number; headers: Wire; body: Wire; text: string },
    task: string,
    kept: string,
  ) {
    assert.equal(retry.headers["idempotent-replayed"], undefined, "not a replay of the first answer");
    const info = retry.body.error.details?.[0] ?? retry.body.error.data?.[0];
    assert.equal(info.reason, "TASK_NOT_FOUND", retry.text);
    assert.equal(info.metadata.reason, "kept_task_forgotten");
    assert.equal(info.metadata.taskId, task);
    assert.match(retry.body.error.message, /no longer keeps.*not run again/);
    const page = await server.call("ListTasks", {});
    assert.deepEqual(
      page.tasks.map((t: Wire) => t.id),
      [kept],
      "the send did not run again",
    );
  }

  it("HTTP+JSON: a stream's retry, once its task is gone, is 404 TASK_NOT_FOUND saying so, not marked replayed", async () => {
    const params = { message: messageV1(sleepMessage("streamed")) };
    const first = await server.stream("/a2a/rest/message:stream", { method: "POST", body: params, headers });
    const events = [await first.next(), ...(await first.rest())];
    const taskId = events[0]?.data.task.id as string;
    assert.equal(events.at(-1)?.data.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    const kept = await another();
    assert.equal((await server.fetch(`/a2a/rest/tasks/${taskId}`)).status, 404, "the task was let go");
    const retry = await server.fetch("/a2a/rest/message:stream", { method: "POST", body: params, headers });
    assertStatus(retry, 404, "NOT_FOUND");
    await assertForgotten(retry, taskId, kept);
  });

  it("JSON-RPC: an answer over 1 MiB (kept as its task) is -32001 saying the task is gone, once it is", async () => {
    const params = { message: messageV1({ ...(envelopeParams("flood").message as object), messageId: randomUUID() }) };
    const first = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      headers,
      body: { jsonrpc: "2.0", id: 1, method: "SendMessage", params },
      timeoutMs: 30_000,
    });
    assert.ok(first.text.length > 1024 * 1024, `an answer over 1 MiB: ${first.text.length}`);
    const taskId = first.body.result.task.id as string;
    const kept = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      headers,
      body: { jsonrpc: "2.0", id: 2, method: "SendMessage", params },
    });
    assert.equal(kept.headers["idempotent-replayed"], "true", "while the task is kept, a replay");
    assert.equal(kept.body.result.task.id, taskId);
    const other = await another();
    const retry = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      headers,
      body: { jsonrpc: "2.0", id: 3, method: "SendMessage", params },
    });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.error.code, -32001, retry.text);
    await assertForgotten(retry, taskId, other);
  });
});

describe("--require-extensions: a messageId that is not a UUID is refused on every binding (idempotency/v1 §7.1)", () => {
  let server: HttpServer;
  let bridge: RpcBridge;
  const grpcSends = grpcDriver(() => server);
  before(async () => {
    server = await startHttp(["--require-extensions", "--grpc-port", "0"]);
    bridge = startBridge({ args: ["--require-extensions"] });
    await bridge.ready();
  });
  after(async () => {
    grpcSends.close();
    await server?.close();
    await bridge?.close();
  });
  const runtime = { "A2A-Extensions": RUNTIME_URI };
  const drivers: Driver[] = [
    ...everyDriver(
      () => bridge,
      () => server,
    ),
    grpcSends,
  ];

  /** How many tasks the binding's server holds. */
  async function tasks(driver: Driver): Promise<number> {
    if (!driver.name.startsWith("stdio")) return (await server.call("ListTasks", {}, runtime)).totalSize;
    const params = { metadata: { "a2a-service-parameters": { "A2A-Extensions": RUNTIME_URI } } };
    return (await bridge.call("tasks/list", params)).totalSize;
  }

  for (const driver of drivers)
    it(`${driver.name}: refused before anything runs, with the field and reason; a UUID v4 or v7 runs`, async () => {
      const before = await tasks(driver);
      for (const id of ["run-1", "0189-not-a-uuid", `{${randomUUID()}}`, randomUUID().replaceAll("-", "")]) {
        const message = { ...(echoParams("not a uuid").message as object), messageId: id };
        const refused = await driver.send(message, { extensions: BOTH });
        const { error } = refused.body;
        assert.ok(error, `refused: ${refused.text}`);
        let violation: Wire;
        if (driver.name === "gRPC") {
          assert.equal(error.code, grpc.status.INVALID_ARGUMENT, refused.text);
          violation = error.failure.badRequest.fieldViolations[0];
        } else if (driver.name === "HTTP+JSON") {
          assert.equal(refused.status, 400);
          assert.equal(error.status, "INVALID_ARGUMENT");
          violation = error.details.find((d: Wire) => d.fieldViolations).fieldViolations[0];
        } else {
          assert.equal(error.code, -32602, refused.text);
          violation =
            driver.family === "1.0"
              ? error.data.find((d: Wire) => d.fieldViolations).fieldViolations[0]
              : { field: error.data.errors[0].path, reason: error.data.errors[0].code };
        }
        assert.equal(violation.field, "/message/messageId");
        assert.equal(violation.reason, "message_id_not_uuid");
        assert.match(refused.text, /expected a messageId that is a UUID/);
      }
      assert.equal(await tasks(driver), before, "nothing ran");
      // A v4 and a v7 (its version digit set to 7).
      const v7 = randomUUID().replace(/^(.{14})./, "$17");
      for (const id of [randomUUID(), v7]) {
        const message = { ...(echoParams("a uuid").message as object), messageId: id };
        const ran = await driver.send(message, { extensions: BOTH });
        assert.equal(ran.body.error, undefined, ran.text);
      }
      assert.equal(await tasks(driver), before + 2);
    });
});
