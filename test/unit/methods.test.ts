// The JSON-RPC methods over a real in-process dispatcher: service parameters, and streams that start late.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { A2aService } from "../../src/a2a/service.js";
import { activatedExtensions } from "../../src/a2a/service-params.js";
import type { WireEvent } from "../../src/a2a/v0_3/codec.js";
import { Dispatcher } from "../../src/core/dispatcher.js";
import { analyzeInput } from "../../src/core/envelope.js";
import { HITL_URI } from "../../src/core/uris.js";
import { createMethods } from "../../src/jsonrpc/methods.js";
import { StreamReply } from "../../src/jsonrpc/stream-reply.js";

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
    const dispatcher = new Dispatcher({ workspace: process.cwd() });
    const echo = dispatcher.submit({
      analysis: analyzeInput({ role: "user", parts: [{ kind: "text", text: "hi" }] }),
      hitlActivated: false,
    });
    await dispatcher.settled(echo.id);
    // The delivery is awaited; meanwhile the command read the answer and exited.
    dispatcher.answer = async () => dispatcher.get(echo.id);
    const events: WireEvent[] = [];
    const server = createMethods({ service: new A2aService(dispatcher), version: "0", log: () => {} });
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
    const response = await server.receive({ jsonrpc: "2.0", id: 1, method: "message/stream", params }, {});
    const reply = response?.result as StreamReply;
    assert.ok(reply instanceof StreamReply);
    assert.equal((reply.first as { status: { state: string } }).status.state, "completed");
    for (let step = await reply.rest.next(); !step.done; step = await reply.rest.next())
      events.push(step.value as WireEvent);
    assert.deepEqual(
      events.map((e) => [e.kind, e.kind === "status-update" && e.final]),
      [["status-update", true]],
    );
  });
});
