// Race: 50 concurrent answers to one open prompt, through a real bridge (CONTRACT section 4: accepting claims the
// prompt atomically; a second or concurrent answer gets -32010). In one batch, and as 50 lines written at once.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HITL_URI as HITL } from "../../src/core/uris.js";
import { RpcBridge } from "../helpers/bridge.js";
import { sleep } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const ANSWERS = 50;
const SERVICE = { "a2a-service-parameters": { "A2A-Extensions": HITL } };

interface Prompt {
  task: Wire;
  promptId: string;
}

function promptOf(task: Wire): Prompt {
  assert.equal(task.status.state, "input-required", JSON.stringify(task.status));
  const promptId = task.status.message?.metadata?.[HITL]?.prompt_id;
  assert.equal(typeof promptId, "string", JSON.stringify(task.status.message));
  return { task, promptId };
}

function answer(id: string, { task, promptId }: Prompt, text: string): Wire {
  return {
    jsonrpc: "2.0",
    id,
    method: "message/send",
    params: {
      message: {
        kind: "message",
        messageId: `answer-${id}`,
        role: "user",
        parts: [{ kind: "text", text }],
        taskId: task.id,
        contextId: task.contextId,
        metadata: { hitl_response_for: { prompt_id: promptId, payload: { text } } },
      },
      metadata: SERVICE,
    },
  };
}

/**
 * Exactly one response is a result: the task once it ended or asks again (a blocking send, CONTRACT 4); every other
 * one is -32010.
 */
function exactlyOneAccepted(responses: Wire[], prompt: Prompt): Wire {
  assert.equal(responses.length, ANSWERS);
  const accepted = responses.filter((r) => r.result !== undefined);
  const refused = responses.filter((r) => r.error !== undefined);
  assert.equal(accepted.length, 1, `exactly one accepted, got ${accepted.length}: ${JSON.stringify(accepted)}`);
  assert.equal(refused.length, ANSWERS - 1);
  for (const r of refused) {
    assert.equal(r.error.code, -32010, JSON.stringify(r.error));
    assert.equal(r.error.message, "hitl_already_answered_or_unknown");
    assert.equal(r.error.data?.extension, HITL);
    // Answers on separate lines are taken one after another: a late one may find the command already gone.
    assert.ok(["unknown_or_answered", "no_live_binding"].includes(r.error.data?.reason), JSON.stringify(r.error.data));
  }
  const winner = accepted[0];
  assert.equal(winner.result.id, prompt.task.id);
  assert.ok(
    ["input-required", "completed", "failed"].includes(winner.result.status.state),
    `a blocking answer returns once the task ended or asks again: ${winner.result.status.state}`,
  );
  return winner;
}

describe("race: 50 concurrent answers to one prompt", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge();
  });
  after(() => bridge.kill());

  const openPrompt = async (fixture: string): Promise<Prompt> => {
    const params = envelopeParams(fixture, { envelope: { input_mode: "text-line" }, extensions: HITL });
    return promptOf(await bridge.call("message/send", params));
  };

  const ended = async (id: string): Promise<Wire> => {
    for (let i = 0; i < 200; i++) {
      const task = await bridge.call("tasks/get", { id });
      if (["completed", "failed", "canceled"].includes(task.status.state)) return task;
      await sleep(50);
    }
    assert.fail(`task ${id} did not end`);
  };

  const nextPrompt = async (id: string, previous: string): Promise<Prompt> => {
    for (let i = 0; i < 200; i++) {
      const task = await bridge.call("tasks/get", { id });
      if (task.status.state === "input-required" && task.status.message.metadata[HITL].prompt_id !== previous)
        return promptOf(task);
      assert.ok(
        !["completed", "failed", "canceled"].includes(task.status.state),
        `ended early: ${artifactText(task, "stdout")}`,
      );
      await sleep(25);
    }
    assert.fail(`no second prompt on ${id}`);
  };

  /** 50 answers with distinct texts in one batch line; resolves with the accepted one's text. */
  const raceBatch = async (prompt: Prompt, tag: string): Promise<string> => {
    const requests = Array.from({ length: ANSWERS }, (_, i) => answer(`${tag}-${i}`, prompt, `${tag}-${i}`));
    bridge.sendLine(JSON.stringify(requests));
    const batch = await bridge.nextRawResponse(30_000);
    assert.ok(Array.isArray(batch), "the batch is answered with an array");
    const winner = exactlyOneAccepted(batch, prompt);
    assert.deepEqual(batch.map((r: Wire) => r.id).sort(), requests.map((r) => r.id).sort(), "one answer per request");
    return String(winner.id);
  };

  /** 50 answers with distinct texts, one line each, written with a single write. */
  const raceLines = async (prompt: Prompt, tag: string): Promise<string> => {
    const requests = Array.from({ length: ANSWERS }, (_, i) => answer(`${tag}-${i}`, prompt, `${tag}-${i}`));
    bridge.sendBytes(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
    const responses = await Promise.all(requests.map((r) => bridge.responseTo(r.id, 30_000)));
    return String(exactlyOneAccepted(responses, prompt).id);
  };

  it("ask, one batch of 50 answers: exactly one accepted, 49 get -32010; the accepted text reaches the command", async () => {
    const prompt = await openPrompt("ask");
    const text = await raceBatch(prompt, "batch");
    const task = await ended(prompt.task.id);
    assert.equal(artifactText(task, "stdout"), `Continue? [y/N] answer: ${text}\n`);
    // The fixture exits 0 only on "y": a truthful failed/application.
    assert.equal(task.status.state, "failed");
    assert.equal(task.status.fail_kind, "application");
  });

  it("ask, 50 answer lines written at once: exactly one accepted, 49 get -32010", async () => {
    const prompt = await openPrompt("ask");
    const text = await raceLines(prompt, "line");
    const task = await ended(prompt.task.id);
    assert.equal(artifactText(task, "stdout"), `Continue? [y/N] answer: ${text}\n`);
  });

  it("ask-twice: one line reaches stdin per race, so the second prompt is raised and answered the same way", async () => {
    const first = await openPrompt("ask-twice");
    const a = await raceBatch(first, "first");
    // Had two answers been written, the fixture would read the second one as its second answer and exit.
    const second = await nextPrompt(first.task.id, first.promptId);
    assert.notEqual(second.promptId, first.promptId);
    const b = await raceLines(second, "second");
    const task = await ended(first.task.id);
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    assert.match(artifactText(task, "stdout"), new RegExp(`answers: ${a},${b}\\n$`));
  });

  it("the bridge still serves, wrote protocol lines only, and exits 0", async () => {
    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    assert.deepEqual(bridge.protocolProblems, []);
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});
