// hitl-prompt/v1 over the A2A 1.0 methods of `serve --stdio` (CONTRACT 4, 7.2, 7.3, 7.5): the prompt's status
// message in 1.0 shape, answers with ROLE_USER, the -32010/-32011 details, and streams that close at
// TASK_STATE_INPUT_REQUIRED and reopen with the answer.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HITL_URI } from "../../src/core/uris.js";
import { assertStreamResponse, assertV1 } from "../helpers/a2a-schema.js";
import { suiteBridge } from "../helpers/bridge.js";
import { answerParams, textLineParams } from "../helpers/envelopes.js";
import { promptEnvelopeProblems } from "../helpers/hitl-schema.js";
import { assertErrorV1, OUR_DOMAIN } from "../helpers/v1-errors.js";
import { closesV1, ENDED_V1, messageV1, paramsV1 } from "../helpers/v1-requests.js";
import { artifactText, eventText, type TaskEvent, type Wire } from "../helpers/wire.js";

/** A 1.0 SendMessageRequest that answers `promptId` of `task` (CONTRACT section 4). */
function answerV1(task: Wire, promptId: string, payload: unknown, overrides: Record<string, unknown> = {}) {
  return { message: { ...messageV1(answerParams(task, promptId, payload).message), ...overrides } };
}

const promptIdOf = (task: Wire): string => task.status.message.metadata[HITL_URI].prompt_id;

describe("serve --stdio: hitl-prompt/v1 with the A2A 1.0 methods", () => {
  const suite = suiteBridge({ args: ["--settle-ms", "100"] });

  async function send(params: unknown): Promise<Wire> {
    const response = await suite().callRaw("SendMessage", params);
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    assertV1("Send Message Response", response.result);
    return response.result.task;
  }

  async function getTask(id: string): Promise<Wire> {
    const task = await suite().call("GetTask", { id });
    assertV1("Task", task);
    return task;
  }

  async function untilEnded(id: string): Promise<Wire> {
    for (;;) {
      const task = await getTask(id);
      if (ENDED_V1.includes(task.status.state)) return task;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** A stream's result and its notifications up to the one that closes it, each checked as a StreamResponse. */
  async function stream(params: unknown): Promise<{ first: Wire; events: TaskEvent[] }> {
    const response = await suite().callRaw("SendStreamingMessage", params);
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    assertStreamResponse(response.result, "the stream's result");
    const events = await suite().eventsUntil(response.result.task.id, closesV1);
    for (const event of events) assertStreamResponse(event);
    return { first: response.result, events };
  }

  it("a blocking SendMessage returns at TASK_STATE_INPUT_REQUIRED with the prompt's status message of CONTRACT 7.2", async () => {
    const task = await send(paramsV1(textLineParams("ask")));
    assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
    const message = task.status.message;
    const envelope = message.metadata[HITL_URI];
    assert.deepEqual(promptEnvelopeProblems(envelope), []);
    assert.deepEqual(message, {
      messageId: envelope.prompt_id,
      role: "ROLE_AGENT",
      parts: [{ text: envelope.prompt }],
      taskId: task.id,
      contextId: task.contextId,
      metadata: { [HITL_URI]: envelope },
      extensions: [HITL_URI],
    });
    assert.equal(envelope.prompt, "Continue? [y/N]");
    assert.equal(task.metadata["a2a-service-parameters"]["A2A-Extensions"], HITL_URI, "the extension is echoed");

    const answered = await send(answerV1(task, envelope.prompt_id, { text: "y" }));
    assert.equal(answered.id, task.id);
    assert.equal(answered.status.state, "TASK_STATE_COMPLETED", "a blocking answer waits for the end");
    assert.deepEqual(
      answered.history.map((message: Wire) => message.parts[0].text),
      [task.history[0].parts[0].text, "y"],
      "the answer is kept in the history, after the request",
    );
    const done = await untilEnded(task.id);
    assert.equal(done.status.state, "TASK_STATE_COMPLETED");
    assert.match(artifactText(done, "stdout"), /answer: y\n$/);
  });

  it("a second answer is -32010 with ErrorInfo HITL_ALREADY_ANSWERED_OR_UNKNOWN (reason, prompt_id, extension)", async () => {
    // ask-twice stays alive after the first answer (it waits for a second one), so the command is still bound.
    const task = await send(paramsV1(textLineParams("ask-twice")));
    const promptId = promptIdOf(task);
    await send(answerV1(task, promptId, { text: "first" }));
    const again = await suite().callError("SendMessage", answerV1(task, promptId, { text: "second" }));
    // The reason in words too, not only in the ErrorInfo.
    assert.match(again.message, /^hitl_already_answered_or_unknown: .*already answered/);
    const { info, violations } = assertErrorV1(again, -32010, "HITL_ALREADY_ANSWERED_OR_UNKNOWN", OUR_DOMAIN);
    assert.deepEqual(info.metadata, {
      extension: HITL_URI,
      prompt_id: promptId,
      reason: "unknown_or_answered",
    });
    assert.equal(violations, undefined);
    await suite().call("CancelTask", { id: task.id });
  });

  it("an invalid answer is -32011 with ErrorInfo HITL_RESPONSE_INVALID and a BadRequest; the prompt stays open", async () => {
    const task = await send(paramsV1(textLineParams("ask")));
    const promptId = promptIdOf(task);
    const invalid = await suite().callError("SendMessage", answerV1(task, promptId, { text: "a\u0007b", extra: 1 }));
    assert.equal(invalid.message, "hitl_response_invalid");
    const { info, violations } = assertErrorV1(invalid, -32011, "HITL_RESPONSE_INVALID", OUR_DOMAIN);
    assert.equal(info.metadata.prompt_id, promptId);
    assert.equal(info.metadata.extension, HITL_URI);
    assert.ok((violations ?? []).length >= 2, JSON.stringify(violations));
    for (const violation of violations ?? []) assert.ok(violation.reason !== "" && violation.description !== "");

    const malformed = await suite().callError("SendMessage", {
      message: { ...messageV1(answerParams(task, promptId, {}).message), metadata: { hitl_response_for: { x: 1 } } },
    });
    assertErrorV1(malformed, -32011, "HITL_RESPONSE_INVALID", OUR_DOMAIN);

    const agent = await suite().callError(
      "SendMessage",
      answerV1(task, promptId, { text: "y" }, { role: "ROLE_AGENT" }),
    );
    assert.equal(agent.code, -32602, JSON.stringify(agent));

    const still = await getTask(task.id);
    assert.equal(still.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.equal(promptIdOf(still), promptId);
    await send(answerV1(task, promptId, { text: "y" }));
    assert.equal((await untilEnded(task.id)).status.state, "TASK_STATE_COMPLETED");
  });

  it("an answer to an unknown task is -32001; with another contextId it is -32010 context_mismatch", async () => {
    const task = await send(paramsV1(textLineParams("ask")));
    const promptId = promptIdOf(task);
    const unknown = await suite().callError("SendMessage", answerV1(task, promptId, { text: "y" }, { taskId: "nope" }));
    assertErrorV1(unknown, -32001, "TASK_NOT_FOUND");
    const other = await suite().callError(
      "SendMessage",
      answerV1(task, promptId, { text: "y" }, { contextId: "other" }),
    );
    assert.equal(
      assertErrorV1(other, -32010, "HITL_ALREADY_ANSWERED_OR_UNKNOWN", OUR_DOMAIN).info.metadata.reason,
      "context_mismatch",
    );
    await suite().call("CancelTask", { id: task.id });
  });

  it("SendStreamingMessage closes at TASK_STATE_INPUT_REQUIRED; each answer sent with it opens a new stream", async () => {
    const { first, events } = await stream(paramsV1(textLineParams("ask-twice")));
    const taskId = first.task.id;
    const opened = events.at(-1)?.statusUpdate;
    assert.equal(opened.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.equal(opened.status.message.role, "ROLE_AGENT");
    const firstPrompt = opened.status.message.messageId;
    assert.equal(opened.status.message.metadata[HITL_URI].prompt_id, firstPrompt);

    const second = await stream(answerV1(first.task, firstPrompt, { text: "a" }));
    assert.equal(second.first.task.id, taskId);
    assert.equal(second.first.task.status.state, "TASK_STATE_WORKING");
    const reopened = second.events.at(-1)?.statusUpdate;
    assert.equal(reopened.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.notEqual(reopened.status.message.messageId, firstPrompt, "a new prompt, a new id");

    const third = await stream(answerV1(first.task, reopened.status.message.messageId, { text: "b" }));
    assert.equal(third.events.at(-1)?.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    const output = artifactText(third.first.task, "stdout") + eventText(third.events, "stdout");
    assert.match(output, /answers: a,b\n$/);
    await getTask(taskId);
    assert.deepEqual(suite().queuedEvents(taskId), [], "nothing follows a closed stream");
  });

  it("SubscribeToTask of a task at a prompt: the task with its prompt, then its answer and the rest, to its end", async () => {
    const task = await send(paramsV1(textLineParams("ask")));
    const subscribed = await suite().callRaw("SubscribeToTask", { id: task.id });
    const first = subscribed.result;
    assertStreamResponse(first);
    assert.equal(first.task.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.equal(promptIdOf(first.task), promptIdOf(task));
    await send(answerV1(task, promptIdOf(task), { text: "y" }));
    const events = await suite().eventsUntil(task.id, (event) => ENDED_V1.includes(event.statusUpdate?.status?.state));
    assert.ok(
      events.every((event) => event.subscription === subscribed.id),
      "each names its subscription",
    );
    assert.equal(events.at(-1)?.statusUpdate.status.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(suite().queuedEvents(task.id), [], "nothing after the end");
  });

  it("0.3 message/stream of the same command does not close at input-required (CONTRACT 7.3)", async () => {
    const task = await suite().call("message/stream", textLineParams("ask"));
    const prompt = await suite().nextEvent(task.id, (event) => event.status?.state === "input-required");
    assert.equal(prompt.final, false);
    await suite().call(
      "message/send",
      answerParams(task, prompt.status.message.metadata[HITL_URI].prompt_id, { text: "y" }),
    );
    const rest = await suite().eventsUntilFinal(task.id);
    assert.equal(rest.at(-1)?.status.state, "completed");
  });

  it("every stdout line was JSON-RPC 2.0", () => {
    assert.deepEqual(suite().protocolProblems, []);
  });
});
