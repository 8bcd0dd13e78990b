// The 1.0 codec's objects against the A2A 1.0 JSON Schema, and the schema helper itself: it must be able to fail.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { agentCard10 } from "../../src/a2a/card.js";
import { streamResponseOf, taskOf } from "../../src/a2a/v1_0/codec.js";
import { encode10 } from "../../src/a2a/wire/encode.js";
import { newPrompt } from "../../src/core/hitl/hitl.js";
import { a2aProblems, assertStreamResponse, assertV1, zeroThreeKeys } from "../helpers/a2a-schema.js";
import { output, taskView } from "../helpers/events.js";

const finished = taskView({
  dispatch: "echo",
  state: "completed",
  exitCode: 0,
  statusText: "completed: echoed",
  message: { role: "user", messageId: "m1", parts: [{ type: "text", text: "hi" }] },
  output: {
    stdout: { chunks: [{ seq: 1, stream: "stdout", text: "hi\n", bytes: 3 }], totalBytes: 3, droppedBytes: 0 },
    stderr: { chunks: [], totalBytes: 0, droppedBytes: 0 },
  },
});

describe("the schema helper", () => {
  it("finds a key the schema does not define, a wrong enum, and a 0.3 key at any depth", () => {
    const task = taskOf(finished);
    assert.notDeepEqual(a2aProblems("Task", { ...task, kind: "task" }), []);
    assert.notDeepEqual(a2aProblems("Task", { ...task, status: { ...task.status, state: "completed" } }), []);
    assert.deepEqual(zeroThreeKeys({ a: [{ b: { final: true } }], kind: "x" }), ["/a/0/b/final", "/kind"]);
    assert.throws(() => a2aProblems("No Such Thing", {}), /no definition/);
  });
});

describe("1.0 codec objects are valid A2A 1.0", () => {
  it("a task with artifacts and history", () => {
    assertV1("Task", taskOf(finished));
    assertV1("Send Message Response", { task: taskOf(finished) });
  });
  it("a task at a prompt: the status message of CONTRACT 7.2", () => {
    const prompt = newPrompt("Continue? [y/N]", new Date("2030-01-01T00:00:00Z"));
    const task = taskOf(taskView({ state: "input-required", prompt }));
    assertV1("Task", task);
    assert.equal(task.status.message?.messageId, prompt.id);
    assert.equal(task.status.message?.role, "ROLE_AGENT");
  });
  it("stream responses, as objects and as the fast JSON text", () => {
    for (const event of [
      output("chunk\n", "stdout", true),
      output("err\n", "stderr"),
      { type: "status" as const, task: finished },
    ]) {
      const response = streamResponseOf(event);
      assertStreamResponse(response);
      assertStreamResponse(JSON.parse(String(encode10(event, { head: "", tail: "" }))));
    }
    assertStreamResponse({ task: taskOf(finished) });
  });
  it("the agent card (but for the 0.3 fields CONTRACT 8.2 adds)", () => {
    const {
      url: _u,
      preferredTransport: _p,
      protocolVersion: _v,
      ...card
    } = agentCard10("1.2.3", "i-1", "http://127.0.0.1:1");
    assertV1("Agent Card", card);
  });
});
