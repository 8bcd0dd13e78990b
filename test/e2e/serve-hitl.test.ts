// hitl-prompt/v1 through `serve --stdio`: activation, the prompt envelope, answers and every refusal (CONTRACT
// sections 4, 5.2 and 5.3).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, it } from "node:test";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { type RpcBridge, suiteBridge } from "../helpers/bridge.js";
import { answerParams, envelopeParams, textLineParams } from "../helpers/envelopes.js";
import { promptEnvelopeProblems } from "../helpers/hitl-schema.js";
import { allTasks } from "../helpers/list-pages.js";
import { artifactText, ended, eventText, type TaskEvent, type Wire } from "../helpers/wire.js";

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
const RESPONSE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: { text: { type: "string", maxLength: 4096 } },
};

const promptOf = (task: Wire) => task.status?.message?.metadata?.[HITL_URI];
const taskIds = async (bridge: RpcBridge): Promise<string[]> =>
  (await allTasks(bridge)).map((task: Wire) => task.id).sort();
const echoed = (task: Wire): string[] =>
  String(task.metadata?.["a2a-service-parameters"]?.["A2A-Extensions"] ?? "")
    .split(",")
    .map((uri) => uri.trim().toLowerCase())
    .filter((uri) => uri !== "");

/** Checks a -32010 / -32011 error's data: the extension, the prompt id and (for -32010) the reason. */
function assertHitlError(error: Wire, code: -32010 | -32011, promptId: string, reason?: string): void {
  assert.equal(error.code, code, JSON.stringify(error));
  assert.equal(error.message, code === -32010 ? "hitl_already_answered_or_unknown" : "hitl_response_invalid");
  assert.equal(error.data?.extension, HITL_URI);
  assert.equal(error.data?.prompt_id, promptId);
  if (reason !== undefined) assert.equal(error.data?.reason, reason);
}

describe("serve --stdio: hitl-prompt/v1", () => {
  const suite = suiteBridge({ args: ["--settle-ms", "100"] });

  /** Starts `fixture` in text-line mode and waits (blocking send) for its prompt. */
  async function prompted(
    fixture = "ask",
    envelope: Record<string, unknown> = {},
  ): Promise<{ task: Wire; promptId: string }> {
    const task = await suite().call("message/send", textLineParams(fixture, { envelope }));
    assert.equal(task.status.state, "input-required", JSON.stringify(task.status));
    return { task, promptId: promptOf(task).prompt_id };
  }

  /** After a refused answer: the task still waits on the same prompt. */
  async function assertStillOpen(task: Wire, promptId: string, what: string): Promise<void> {
    const still = await suite().call("tasks/get", { id: task.id });
    assert.equal(still.status.state, "input-required", `${what}: the prompt stays open`);
    assert.equal(promptOf(still).prompt_id, promptId);
  }

  /** Answers "y"; a blocking answer returns once the task has ended (CONTRACT 4); returns the task as it ended. */
  async function answerYes(task: Wire, promptId: string): Promise<Wire> {
    const ok = await suite().call("message/send", answerParams(task, promptId, { text: "y" }));
    assert.equal(ok.status.state, "completed");
    return suite().waitTask(task.id, ended);
  }

  it("a blocking send returns input-required with the prompt envelope; an answer resumes it to completion", async () => {
    const task = await suite().call("message/send", textLineParams("ask"));
    assert.equal(task.status.state, "input-required");
    assert.deepEqual(echoed(task), [HITL_URI.toLowerCase()], "the activated extension is echoed");
    const message = task.status.message;
    assert.equal(message.kind, "message");
    assert.equal(message.role, "agent");
    assert.ok(message.extensions.includes(HITL_URI));
    const envelope = promptOf(task);
    assert.deepEqual(promptEnvelopeProblems(envelope), []);
    assert.match(envelope.prompt_id, UUID_V4);
    assert.equal(envelope.prompt.trim(), "Continue? [y/N]");
    assert.equal(message.parts[0].kind, "text");
    assert.equal(message.parts[0].text.trim(), "Continue? [y/N]");
    assert.deepEqual(envelope.response_schema, RESPONSE_SCHEMA);
    assert.deepEqual(envelope.allowed_responders, ["any"]);
    assert.equal(envelope.deadline, task.metadata[ADAPTER_URI].deadline, "the prompt's deadline is the command's");
    assert.ok(Date.parse(envelope.deadline) > Date.now());
    // The same prompt is served to a reader that asks again.
    const again = await suite().call("tasks/get", { id: task.id });
    assert.equal(again.status.state, "input-required");
    assert.equal(promptOf(again).prompt_id, envelope.prompt_id);

    const answered = await suite().call("message/send", answerParams(task, envelope.prompt_id, { text: "y" }));
    assert.equal(answered.id, task.id);
    assert.equal(answered.status.state, "completed", "a blocking answer waits for the task's end");
    const done = await suite().waitTask(task.id, ended);
    assert.equal(done.status.state, "completed");
    assert.ok(artifactText(done, "stdout").includes("answer: y"), artifactText(done, "stdout"));
    assert.equal(done.metadata[ADAPTER_URI].exit_code, 0);
  });

  it("A2A-Extensions is comma-separated, trimmed and case-insensitive; only recognised URIs are echoed", async () => {
    const header = `  ${HITL_URI.toUpperCase()} ,https://example.com/extensions/other/v1 `;
    const task = await suite().call("message/send", textLineParams("ask", { extensions: header }));
    assert.equal(task.status.state, "input-required");
    const list = echoed(task);
    assert.ok(list.includes(HITL_URI.toLowerCase()), JSON.stringify(list));
    assert.ok(!list.some((uri) => uri.includes("example.com")), JSON.stringify(list));
    await suite().call("tasks/cancel", { id: task.id });
  });

  it("text-line without hitl-prompt/v1 activated is -32602 `adapter-command/v1 rejected:` and creates no task", async () => {
    const before = await taskIds(suite());
    for (const extensions of [[], ["https://example.com/extensions/other/v1"]]) {
      const params = envelopeParams("ask", { envelope: { input_mode: "text-line" } });
      if (extensions.length > 0) params.metadata = { "a2a-service-parameters": { "A2A-Extensions": extensions[0] } };
      const error = await suite().callError("message/send", params);
      assert.equal(error.code, -32602);
      assert.ok(error.message.startsWith("adapter-command/v1 rejected:"), error.message);
      const errors = error.data.errors as Wire[];
      assert.ok(
        errors.some((problem) => String(problem.path).endsWith("/input_mode")),
        JSON.stringify(errors),
      );
    }
    assert.deepEqual(await taskIds(suite()), before);
  });

  it("without text-line, output is never a prompt (the command reads EOF)", async () => {
    const task = await suite().call("message/send", envelopeParams("ask", { extensions: HITL_URI }));
    assert.equal(task.status.state, "failed");
    assert.ok(artifactText(task, "stdout").includes("no answer"), artifactText(task, "stdout"));
  });

  it("a second answer to the same prompt is -32010 unknown_or_answered; the next prompt gets a new id", async () => {
    const { task, promptId } = await prompted("ask-twice");
    const first = await suite().call("message/send", answerParams(task, promptId, { text: "a" }));
    assert.equal(first.status.state, "input-required", "a blocking answer waits for the next prompt");
    const second = await suite().callError("message/send", answerParams(task, promptId, { text: "again" }));
    assertHitlError(second, -32010, promptId, "unknown_or_answered");
    const next = await suite().waitTask(task.id, (t) => t.status.state === "input-required" || ended(t));
    assert.equal(next.status.state, "input-required");
    const nextId = promptOf(next).prompt_id;
    assert.notEqual(nextId, promptId, "a new prompt_id for the next prompt");
    assert.equal(promptOf(next).prompt.trim(), "Second? (yes/no)");
    // The first prompt's id stays dead while the second is open.
    const stale = await suite().callError("message/send", answerParams(task, promptId, { text: "late" }));
    assertHitlError(stale, -32010, promptId, "unknown_or_answered");
    await suite().call("message/send", answerParams(task, nextId, { text: "b" }));
    const done = await suite().waitTask(task.id, ended);
    assert.equal(done.status.state, "completed");
    assert.ok(artifactText(done, "stdout").includes("answers: a,b"), artifactText(done, "stdout"));
  });

  it("of two concurrent answers (one batch) exactly one is accepted, the other is -32010", async () => {
    const { task, promptId } = await prompted("ask");
    const answers = [
      { jsonrpc: "2.0", id: "race-1", method: "message/send", params: answerParams(task, promptId, { text: "y" }) },
      { jsonrpc: "2.0", id: "race-2", method: "message/send", params: answerParams(task, promptId, { text: "n" }) },
    ];
    suite().sendLine(JSON.stringify(answers));
    const responses = (await suite().nextRawResponse()) as Wire[];
    assert.ok(Array.isArray(responses) && responses.length === 2, JSON.stringify(responses));
    const accepted = responses.filter((r) => r.result);
    const refused = responses.filter((r) => r.error);
    assert.equal(accepted.length, 1, JSON.stringify(responses));
    assert.equal(refused.length, 1);
    assert.ok(
      ["completed", "failed"].includes(accepted[0].result.status.state),
      "the blocking answer waits for the end",
    );
    assertHitlError(refused[0].error, -32010, promptId, "unknown_or_answered");
    const done = await suite().waitTask(task.id, ended);
    const winner = accepted[0].id === "race-1" ? "y" : "n";
    assert.ok(artifactText(done, "stdout").includes(`answer: ${winner}`), artifactText(done, "stdout"));
    assert.ok(!artifactText(done, "stdout").includes(`answer: ${winner === "y" ? "n" : "y"}`));
  });

  it("an answer with the wrong contextId is -32010 context_mismatch and the prompt stays open", async () => {
    const { task, promptId } = await prompted("ask");
    const error = await suite().callError(
      "message/send",
      answerParams(task, promptId, { text: "y" }, { contextId: randomUUID() }),
    );
    assertHitlError(error, -32010, promptId, "context_mismatch");
    const still = await suite().call("tasks/get", { id: task.id });
    assert.equal(still.status.state, "input-required");
    assert.equal(promptOf(still).prompt_id, promptId);
    assert.equal(
      (await suite().call("message/send", answerParams(task, promptId, { text: "y" }))).status.state,
      "completed",
    );
    assert.equal((await suite().waitTask(task.id, ended)).status.state, "completed");
  });

  it("an answer to an unknown prompt_id of a live task is -32010 unknown_or_answered", async () => {
    const { task, promptId } = await prompted("ask");
    const other = randomUUID();
    const error = await suite().callError("message/send", answerParams(task, other, { text: "y" }));
    assertHitlError(error, -32010, other, "unknown_or_answered");
    assert.equal(promptOf(await suite().call("tasks/get", { id: task.id })).prompt_id, promptId);
    await suite().call("tasks/cancel", { id: task.id });
  });

  it("an invalid payload is -32011 with validation_errors, the prompt stays open, a corrected answer succeeds", async () => {
    const { task, promptId } = await prompted("ask");
    const invalid: Array<[string, unknown]> = [
      ["a number", { text: 5 }],
      ["an extra key", { text: "y", extra: 1 }],
      ["no text", {}],
      ["a control character", { text: "y\u0007" }],
      ["a newline", { text: "y\nrm -rf" }],
      ["over 4096 bytes", { text: "é".repeat(2049) }],
      ["a lone surrogate", { text: "y\uD800" }],
    ];
    for (const [what, payload] of invalid) {
      const error = await suite().callError("message/send", answerParams(task, promptId, payload));
      assertHitlError(error, -32011, promptId);
      const errors = error.data?.validation_errors as Wire[];
      assert.ok(Array.isArray(errors) && errors.length > 0, `${what}: ${JSON.stringify(error.data)}`);
      for (const problem of errors) {
        assert.equal(typeof problem.path, "string", what);
        assert.equal(typeof problem.keyword, "string", what);
        assert.equal(typeof problem.message, "string", what);
      }
      await assertStillOpen(task, promptId, what);
    }
    const done = await answerYes(task, promptId);
    assert.equal(done.status.state, "completed");
    assert.ok(artifactText(done, "stdout").includes("answer: y"));
    assert.ok(!artifactText(done, "stdout").includes("rm -rf"), "nothing of a refused answer reached the command");
    assert.ok(!artifactText(done, "stdout").includes("\uFFFD"), "no lone surrogate reached the command as U+FFFD");
  });

  it("an answer that is not a user message with parts is -32602 at /message/role or /message/parts; the prompt stays open", async () => {
    const { task, promptId } = await prompted("ask");
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ["role agent", { role: "agent" }, ["/message/role"]],
      ["no role", { role: undefined }, ["/message/role"]],
      ["no parts", { parts: undefined }, ["/message/parts"]],
      ["empty parts", { parts: [] }, ["/message/parts"]],
      ["role agent and no parts", { role: "agent", parts: undefined }, ["/message/role", "/message/parts"]],
    ];
    for (const [what, change, paths] of cases) {
      const params = answerParams(task, promptId, { text: "y" });
      const message = params.message as Record<string, unknown>;
      for (const [key, value] of Object.entries(change)) {
        if (value === undefined) delete message[key];
        else message[key] = value;
      }
      const error = await suite().callError("message/send", params);
      assert.equal(error.code, -32602, `${what}: ${JSON.stringify(error)}`);
      assert.deepEqual(
        ((error.data?.errors ?? []) as Wire[]).map((problem) => problem.path),
        paths,
        what,
      );
      assert.match(error.message, /^Invalid params: /, what);
      await assertStillOpen(task, promptId, what);
    }
    const done = await answerYes(task, promptId);
    assert.equal(artifactText(done, "stdout"), "Continue? [y/N] answer: y\n", "only the good answer was delivered");
  });

  it("an answer that is not a user message with parts is -32602; the prompt stays open", async () => {
    const { task, promptId } = await prompted();
    for (const [override, field] of [
      [{ role: "agent" }, "/message/role"],
      [{ parts: [] }, "/message/parts"],
    ] as const) {
      const params = answerParams(task, promptId, { text: "y" });
      const message = { ...(params.message as object), ...override };
      const error = await suite().callError("message/send", { message });
      assert.equal(error.code, -32602, JSON.stringify(error));
      assert.equal(error.data?.errors?.[0]?.path, field, JSON.stringify(error));
    }
    const still = await suite().call("tasks/get", { id: task.id });
    assert.equal(promptOf(still).prompt_id, promptId);
    await suite().call("tasks/cancel", { id: task.id });
  });

  it("a malformed hitl_response_for is -32011 (checked before the task is looked up)", async () => {
    const task = { id: randomUUID(), contextId: randomUUID() };
    for (const responseFor of [{ prompt_id: randomUUID() }, { prompt_id: "not-a-uuid", payload: {} }, "y"]) {
      const error = await suite().callError("message/send", answerParams(task, "", {}, { responseFor }));
      assert.equal(error.code, -32011, JSON.stringify(error));
      assert.equal(error.data?.extension, HITL_URI);
      assert.ok(Array.isArray(error.data?.validation_errors) && error.data.validation_errors.length > 0);
    }
  });

  it("an answer to an unknown task (or without a taskId) is -32001", async () => {
    const unknown = await suite().callError(
      "message/send",
      answerParams({ id: randomUUID(), contextId: randomUUID() }, randomUUID(), { text: "y" }),
    );
    assert.equal(unknown.code, -32001, JSON.stringify(unknown));
    const params = answerParams({ id: "x", contextId: randomUUID() }, randomUUID(), { text: "y" });
    delete (params.message as Record<string, unknown>).taskId;
    const missing = await suite().callError("message/send", params);
    assert.equal(missing.code, -32001, JSON.stringify(missing));
  });

  it("an answer to a task that has ended is -32010 no_live_binding", async () => {
    const { task, promptId } = await prompted("ask");
    await suite().call("tasks/cancel", { id: task.id });
    const error = await suite().callError("message/send", answerParams(task, promptId, { text: "y" }));
    assertHitlError(error, -32010, promptId, "no_live_binding");
  });

  it("an answer that cannot be delivered is -32010 delivery_failed, and the same prompt reopens", async () => {
    const { task, promptId } = await prompted("close-stdin");
    const error = await suite().callError("message/send", answerParams(task, promptId, { text: "y" }));
    assertHitlError(error, -32010, promptId, "delivery_failed");
    const after = await suite().call("tasks/get", { id: task.id });
    assert.equal(after.status.state, "input-required", "reopened: the task did not change meanwhile");
    assert.equal(promptOf(after).prompt_id, promptId, "the same prompt");
    await suite().call("tasks/cancel", { id: task.id });
  });

  it("output after a prompt withdraws it: the task is working again and an answer to it is -32010", async () => {
    const response = await suite().callRaw("message/stream", textLineParams("ask-then-more"));
    const task = response.result;
    const asked = await suite().nextEvent(
      task.id,
      (e) => e.kind === "status-update" && e.status.state === "input-required",
    );
    const promptId = asked.status.message.metadata[HITL_URI].prompt_id;
    const withdrawn = await suite().nextEvent(task.id, (e) => e.kind === "status-update");
    assert.equal(withdrawn.status.state, "working", "withdrawn when more output came");
    const error = await suite().callError("message/send", answerParams(task, promptId, { text: "y" }));
    assertHitlError(error, -32010, promptId, "unknown_or_answered");
    const now = await suite().call("tasks/get", { id: task.id });
    assert.equal(now.status.state, "working");
    assert.ok(artifactText(now, "stdout").includes("more output"));
    await suite().call("tasks/cancel", { id: task.id });
  });

  it("an answer after the deadline (the command still dying) is -32010 deadline_passed", async () => {
    const { task, promptId } = await prompted("ask-ignore-term", { timeout_seconds: 2 });
    const deadline = Date.parse(promptOf(task).deadline);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()) + 300));
    const error = await suite().callError("message/send", answerParams(task, promptId, { text: "y" }));
    assertHitlError(error, -32010, promptId, "deadline_passed");
    const done = await suite().waitTask(task.id, ended, 8000);
    assert.equal(done.status.state, "failed");
    assert.equal(done.status.fail_kind, "application");
    assert.equal(done.metadata[ADAPTER_URI].reason, "timeout");
  });

  it("message/stream shows the prompt as a non-final input-required status; the answer's events follow", async () => {
    const response = await suite().callRaw("message/stream", textLineParams("ask"));
    const task = response.result;
    const asked = await suite().nextEvent(task.id, (e) => e.kind === "status-update" && e.status.state !== "working");
    assert.equal(asked.status.state, "input-required");
    assert.equal(asked.final, false);
    const envelope = asked.status.message.metadata[HITL_URI];
    assert.deepEqual(promptEnvelopeProblems(envelope), []);
    await suite().call("message/send", answerParams(task, envelope.prompt_id, { text: "y" }));
    const rest = await suite().eventsUntilFinal(task.id);
    const states = rest.filter((e) => e.kind === "status-update").map((e) => e.status.state);
    assert.equal(states[0], "working", JSON.stringify(states));
    assert.equal(states.at(-1), "completed");
    assert.ok(eventText(rest, "stdout").includes("answer: y"));
  });

  it("tasks/resubscribe replays the open prompt (same prompt_id), then the task's events", async () => {
    const { task, promptId } = await prompted("ask");
    const replay = await suite().call("tasks/resubscribe", { id: task.id });
    assert.equal(replay.status.state, "input-required");
    assert.equal(promptOf(replay).prompt_id, promptId);
    assert.deepEqual(promptOf(replay).response_schema, RESPONSE_SCHEMA);
    await suite().call("message/send", answerParams(task, promptId, { text: "y" }));
    const events: TaskEvent[] = await suite().eventsUntilFinal(task.id);
    assert.equal((events.at(-1) as TaskEvent).status.state, "completed");
  });

  it("every stdout line was JSON-RPC 2.0", () => {
    assert.deepEqual(suite().protocolProblems, []);
  });
});
