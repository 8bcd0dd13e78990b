// One answer path for the screen and the plain mode (CONTRACT sections 4 and 6): `sendAnswer` with real runners,
// the words for each refusal, and the answer source (the --answer values first, then the tool's stdin lines).
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { after, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { CoreError, type HitlReason } from "../../src/core/errors.js";
import { Dispatcher } from "../../src/core/task/dispatcher.js";
import { MemoryStore } from "../../src/store/memory.js";
import { AnswerSource, answerPrompts, describeRefusal, sendAnswer } from "../../src/ui/answers.js";

const WORKSPACE = fileURLToPath(new URL("../fixtures/workspace", import.meta.url));
const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: WORKSPACE, settleMs: 50 });
after(() => dispatcher.shutdown());

function start(workingDir: string) {
  const analysis = analyzeInput({
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
    working_dir: workingDir,
    timeout_seconds: 30,
    input_mode: "text-line",
  });
  return dispatcher.submit({ analysis, hitlActivated: true }).id;
}

describe("answerPrompts", () => {
  it("answers a prompt that was already open when it began (a task followed late, or watched at its prompt)", async () => {
    const id = start("ask-text");
    await dispatcher.until(id, (task) => task.state === "input-required");
    const answered: string[] = [];
    const stop = answerPrompts(dispatcher, id, new AnswerSource(["Ann"], undefined), {
      answered: (_prompt, text) => answered.push(text),
      refused: (_prompt, reason) => assert.fail(reason),
      exhausted: () => assert.fail("an answer was given"),
    });
    try {
      await dispatcher.settled(id);
    } finally {
      stop();
    }
    assert.deepEqual(answered, ["Ann"]);
    const ended = dispatcher.get(id);
    assert.match(ended.output?.stdout.chunks.map((chunk) => chunk.text).join("") ?? "", /got "Ann"/);
  });
});

describe("sendAnswer", () => {
  it("delivers the text to the open prompt and names it", async () => {
    const id = start("ask-text");
    await dispatcher.until(id, (task) => task.state === "input-required");
    const result = await sendAnswer(dispatcher, id, "Bøb");
    assert.deepEqual(result, { ok: true, prompt: "Are you sure? Type the new name:" });
    await dispatcher.settled(id);
    const ended = dispatcher.get(id);
    assert.match(ended.output?.stdout.chunks.map((chunk) => chunk.text).join("") ?? "", /got "Bøb"/);
  });

  it("a refused text leaves the prompt open and says why", async () => {
    const id = start("ask-text");
    await dispatcher.until(id, (task) => task.state === "input-required");
    const result = await sendAnswer(dispatcher, id, "tab\there");
    assert.equal(result.ok, false);
    assert.ok(!result.ok && result.stillOpen, "the prompt is still open");
    assert.ok(!result.ok && /U\+0009/.test(result.reason), !result.ok ? result.reason : "");
    assert.equal((await sendAnswer(dispatcher, id, "fine")).ok, true);
    await dispatcher.settled(id);
  });

  it("with no prompt open: refused, in words", async () => {
    const id = start("pid-hang");
    const result = await sendAnswer(dispatcher, id, "y");
    assert.deepEqual(result, {
      ok: false,
      prompt: undefined,
      reason: "no prompt is open (the command printed more, or it has ended)",
      stillOpen: false,
    });
    dispatcher.cancelIfRunning(id);
    await dispatcher.settled(id);
  });
});

describe("describeRefusal", () => {
  it("says each reason of CONTRACT section 4 in words", () => {
    const refusal = (reason: HitlReason) => describeRefusal(new CoreError("hitl_unknown", "x", { reason }));
    assert.match(refusal("deadline_passed"), /deadline has passed/);
    assert.match(refusal("unknown_or_answered"), /no longer open/);
    assert.match(refusal("no_live_binding"), /no longer running/);
    assert.match(refusal("delivery_failed"), /did not take the answer/);
    const invalid = new CoreError("hitl_invalid", "hitl_response_invalid", {
      validation_errors: [
        { path: "/text", keyword: "a", message: "first" },
        { path: "/text", keyword: "b", message: "second" },
      ],
    });
    assert.equal(describeRefusal(invalid), "first; second");
    assert.equal(describeRefusal(new Error("boom")), "Error: boom");
  });
});

describe("AnswerSource", () => {
  it("gives the --answer values in order, then the lines of stdin, then undefined at its end", async () => {
    const stdin = new PassThrough();
    const source = new AnswerSource(["a", "b"], stdin as unknown as NodeJS.ReadStream);
    assert.equal(source.fromTerminal, false);
    assert.equal(await source.next(), "a");
    assert.equal(await source.next(), "b");
    stdin.end("c\r\nd\n");
    assert.equal(await source.next(), "c");
    assert.equal(await source.next(), "d");
    assert.equal(await source.next(), undefined);
    source.close();
  });

  it("reads a terminal too (typed lines), and says so once the --answer values are used up", async () => {
    const stdin = Object.assign(new PassThrough(), { isTTY: true });
    const source = new AnswerSource(["first"], stdin as unknown as NodeJS.ReadStream);
    assert.equal(source.fromTerminal, false);
    assert.equal(await source.next(), "first");
    assert.equal(source.fromTerminal, true);
    stdin.write("typed\n");
    assert.equal(await source.next(), "typed");
    source.close();
  });

  it("without stdin (the screen), only the --answer values", async () => {
    const source = new AnswerSource(["only"], undefined);
    assert.equal(await source.next(), "only");
    assert.equal(await source.next(), undefined);
  });
});
