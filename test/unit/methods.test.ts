// The JSON-RPC methods over a real in-process dispatcher: service parameters, and streams that start late.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { activatedExtensions } from "../../src/a2a/service-params.js";
import type { WireEvent } from "../../src/a2a/v0_3/codec.js";
import { StreamReply } from "../../src/a2a/wire/stream-reply.js";
import { HITL_URI } from "../../src/core/uris.js";
import { endedEcho, memoryDispatcher, methodsOver } from "../helpers/methods.js";

const withService = (service: Record<string, unknown>) => ({ metadata: { "a2a-service-parameters": service } });

describe("activatedExtensions", () => {
  it("finds the A2A-Extensions parameter whatever the case of its name, and of the URIs", () => {
    for (const name of ["A2A-Extensions", "a2a-extensions", "A2A-EXTENSIONS", "a2A-eXtensions"])
      assert.deepEqual(activatedExtensions(withService({ [name]: ` ${HITL_URI.toUpperCase()} , other` })), [HITL_URI]);
    assert.deepEqual(activatedExtensions(withService({ "A2A-Extension": HITL_URI })), []);
  });
});

describe("message/stream of an answer, when the task ends before the stream starts", () => {
  it("the stream still gets the task's final status event", async () => {
    const dispatcher = memoryDispatcher();
    const echo = await endedEcho(dispatcher);
    // The delivery is awaited; meanwhile the command read the answer and exited.
    dispatcher.answer = async () => dispatcher.get(echo.id);
    const events: WireEvent[] = [];
    const { call } = methodsOver(dispatcher);
    const params = {
      message: {
        kind: "message",
        role: "user",
        messageId: "m",
        taskId: echo.id,
        contextId: echo.contextId,
        parts: [{ kind: "text", text: "y" }],
        metadata: { hitl_response_for: { prompt_id: "p", payload: { text: "y" } } },
      },
    };
    const response = await call("message/stream", params);
    const reply = response?.result as StreamReply;
    assert.ok(reply instanceof StreamReply);
    assert.equal((reply.first as { status: { state: string } }).status.state, "completed");
    const bare = { head: "", tail: "" };
    for (let json = await reply.next(bare); json !== undefined; json = await reply.next(bare))
      events.push(JSON.parse(String(json)) as WireEvent);
    assert.deepEqual(
      events.map((e) => [e.kind, e.kind === "status-update" && e.final]),
      [["status-update", true]],
    );
  });
});

describe("params errors: JSON Pointers into params, and words that say what was expected", () => {
  const { call } = methodsOver(memoryDispatcher());

  for (const method of ["tasks/get", "tasks/cancel", "tasks/resubscribe"]) {
    it(`${method} without an id: expected a string, at /id`, async () => {
      const response = await call(method, {});
      assert.equal(response?.error?.code, -32602);
      assert.equal(
        response?.error?.message,
        'Invalid params: missing required field "id": expected a string, found nothing at /id',
      );
      assert.deepEqual(response?.error?.data, {
        errors: [
          {
            path: "/id",
            code: "missing_field",
            message: 'missing required field "id": expected a string, found nothing',
          },
        ],
      });
    });
  }

  it("an id of the wrong type, and a bad historyLength, point at /id and /historyLength", async () => {
    const five = await call("tasks/get", { id: 5 });
    assert.deepEqual(
      five?.error?.data?.errors.map((problem: { path: string }) => problem.path),
      ["/id"],
    );
    assert.match(five?.error?.message ?? "", /expected a string, found a number \(number 5\) at \/id$/);
    const negative = await call("tasks/get", { id: "x", historyLength: -1 });
    assert.deepEqual(
      negative?.error?.data?.errors.map((problem: { path: string }) => problem.path),
      ["/historyLength"],
    );
  });

  it("params that are not an object point at the whole of params; no params at all lack the id", async () => {
    const paths = async (params: unknown) =>
      ((await call("tasks/get", params))?.error?.data?.errors ?? []).map((problem: { path: string }) => problem.path);
    assert.deepEqual(await paths([1, 2]), [""]);
    assert.deepEqual(await paths(undefined), ["/id"]);
    assert.match((await call("tasks/get"))?.error?.message ?? "", /expected a string, found nothing at \/id$/);
  });
});

describe("a full queue is -32000 server busy, data.reason queue_full (CONTRACT 5.5)", () => {
  it("with one slot in the queue, the second task waiting is refused", async () => {
    const dispatcher = memoryDispatcher({ maxConcurrent: 1, maxQueued: 1 });
    const { call } = methodsOver(dispatcher);
    const send = (text: string) =>
      call("message/send", {
        message: { kind: "message", messageId: text, role: "user", parts: [{ kind: "text", text }] },
        configuration: { blocking: false },
      });
    // Both are submitted before the queue is pumped (on a later turn of the event loop): the second finds it full.
    const [first, second] = await Promise.all([send("one"), send("two")]);
    assert.equal(first?.result?.kind, "task", JSON.stringify(first));
    assert.equal(second?.error?.code, -32000);
    assert.equal(second?.error?.message, "server busy: too many tasks waiting (1); try again when some have ended");
    assert.deepEqual(second?.error?.data, { reason: "queue_full" });
    await dispatcher.settled(first?.result?.id);
    assert.equal((await send("three"))?.result?.kind, "task", "a slot is free again");
    await dispatcher.shutdown();
  });
});
