// Text-line input through an in-process Dispatcher with real child processes (CONTRACT sections 3 and 4).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { CoreError, type CoreErrorCode, type HitlReason } from "../../src/core/errors.js";
import { Dispatcher, type TaskView } from "../../src/core/task/dispatcher.js";
import { isTerminal, type TaskState } from "../../src/core/task/task.js";
import { MemoryStore } from "../../src/store/memory.js";

const WORKSPACE = fileURLToPath(new URL("../fixtures/workspace", import.meta.url));
const SETTLE_MS = 100;
/** How long a prompt may take to be raised (the runners print theirs at once). */
const WAIT_MS = 10_000;

const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: WORKSPACE, settleMs: SETTLE_MS });
after(async () => {
  await dispatcher.shutdown();
});

interface Options {
  inputMode?: boolean;
  hitlActivated?: boolean;
  forceTextLine?: boolean;
  timeoutSeconds?: number;
}

function envelope(name: string, options: Options = {}) {
  return {
    adapter: "sandbox-agent-runner",
    mode: "assess",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
    working_dir: name,
    timeout_seconds: options.timeoutSeconds ?? 30,
    ...(options.inputMode === false ? {} : { input_mode: "text-line" }),
  };
}

/** Submits the fixture runner `name` and records every state it goes through. */
function start(name: string, options: Options = {}) {
  const analysis = analyzeInput(envelope(name, options));
  assert.ok(analysis.valid, JSON.stringify(analysis));
  const states: TaskState[] = [];
  const prompts: string[] = [];
  let id = "";
  const off = dispatcher.subscribe((event) => {
    if (event.type !== "status" || (id !== "" && event.task.id !== id)) return;
    states.push(event.task.state);
    if (event.task.state === "input-required") prompts.push(event.task.prompt?.id ?? "(none)");
  });
  const task = dispatcher.submit({
    analysis,
    hitlActivated: options.hitlActivated ?? true,
    ...(options.forceTextLine ? { forceTextLine: true } : {}),
  });
  id = task.id;
  return { task, states, prompts, off };
}

/** `dispatcher.until`, but failing with what happened instead of hanging when `accept` never holds. */
async function waitFor(
  id: string,
  what: string,
  accept: (task: TaskView) => boolean,
  ms = WAIT_MS,
  on: Dispatcher = dispatcher,
): Promise<TaskView> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const task = on.get(id, false);
      reject(new Error(`no ${what} within ${ms} ms: the task is ${task.state} (${task.statusText ?? "running"})`));
    }, ms);
  });
  try {
    return await Promise.race([on.until(id, (t) => accept(t) || isTerminal(t.state)), timeout]).then((task) => {
      assert.ok(accept(task), `no ${what}: the task ended ${task.state} (${task.statusText})`);
      return task;
    });
  } finally {
    clearTimeout(timer);
  }
}

const inputRequired = (id: string, not?: string, on: Dispatcher = dispatcher) =>
  waitFor(
    id,
    "prompt",
    (t) => t.state === "input-required" && t.prompt !== undefined && t.prompt.id !== not,
    WAIT_MS,
    on,
  );
const ended = (id: string) => waitFor(id, "end", (t) => isTerminal(t.state), 20_000);

function answer(task: TaskView, promptId: string, text = "y") {
  return dispatcher.answer({
    taskId: task.id,
    contextId: task.contextId,
    response: { prompt_id: promptId, payload: { text } },
  });
}

/** Cancels a task that still runs and waits until its process is gone. */
/** Runs `body` on a started task; whatever happens, stops listening and ends the task so no process outlives it. */
async function withTask(
  args: Parameters<typeof start>,
  body: (started: ReturnType<typeof start>) => Promise<void>,
): Promise<void> {
  const started = start(...args);
  try {
    await body(started);
  } finally {
    started.off();
    await finish(started.task.id);
  }
}

async function finish(id: string): Promise<TaskView> {
  dispatcher.cancelIfRunning(id); // past its deadline or already exited, it ends by itself
  await dispatcher.settled(id);
  return dispatcher.get(id);
}

function stdoutOf(task: TaskView): string {
  return (task.output?.stdout.chunks ?? []).map((chunk) => chunk.text).join("");
}

async function assertRefused(
  promise: Promise<unknown>,
  code: CoreErrorCode,
  reason?: HitlReason,
  promptId?: string,
): Promise<CoreError> {
  try {
    const value = await promise;
    assert.fail(`expected ${code}${reason ? `/${reason}` : ""}, got ${JSON.stringify(value)}`);
  } catch (error) {
    if (!(error instanceof CoreError)) throw error;
    assert.deepEqual(
      { code: error.code, reason: error.data.reason },
      { code, reason },
      `${error.message} ${JSON.stringify(error.data)}`,
    );
    if (promptId !== undefined) assert.equal(error.data.prompt_id, promptId);
    return error;
  }
}

describe("dispatcher: text-line prompts and answers", () => {
  it("ask-twice: two prompts with different ids, both answers delivered in order", async () => {
    await withTask(["ask-twice"], async ({ task }) => {
      const first = await inputRequired(task.id);
      const p1 = first.prompt;
      assert.ok(p1);
      assert.equal(p1.text, "First? [y/N]");
      assert.equal(p1.deadline, first.deadline);
      assert.deepEqual(p1.allowedResponders, ["any"]);
      const accepted = await answer(task, p1.id, "y");
      assert.equal(accepted.state, "working");
      assert.equal(accepted.prompt, undefined);

      const second = await inputRequired(task.id, p1.id);
      const p2 = second.prompt;
      assert.ok(p2);
      assert.notEqual(p2.id, p1.id);
      assert.equal(p2.text, "Second? (yes/no)");
      await answer(task, p2.id, "yes");

      const done = await ended(task.id);
      assert.equal(done.state, "completed");
      assert.match(stdoutOf(done), /answers: y,yes\n/);
    });
  });

  it("ansi-prompt: the prompt is raised with its escapes stripped", async () => {
    await withTask(["ansi-prompt"], async ({ task }) => {
      const open = await inputRequired(task.id);
      assert.equal(open.prompt?.text, "Do you want to proceed? [y/N]");
      await answer(task, open.prompt?.id as string, "y");
      const done = await ended(task.id);
      assert.equal(done.state, "completed");
      assert.match(stdoutOf(done), /answer y\n/);
    });
  });

  it("a second answer to the same prompt → hitl_unknown / unknown_or_answered", async () => {
    await withTask(["ask-twice"], async ({ task }) => {
      const open = await inputRequired(task.id);
      const p1 = open.prompt?.id as string;
      await answer(task, p1, "y");
      await assertRefused(answer(task, p1, "n"), "hitl_unknown", "unknown_or_answered", p1);
      // Also once the next prompt is open: the old id stays answered.
      await inputRequired(task.id, p1);
      await assertRefused(answer(task, p1, "n"), "hitl_unknown", "unknown_or_answered", p1);
    });
  });

  it("20 concurrent answers to one prompt: exactly one is accepted and written", async () => {
    await withTask(["ask-twice"], async ({ task }) => {
      const open = await inputRequired(task.id);
      const p1 = open.prompt?.id as string;
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => answer(task, p1, "y")));
      const fulfilled = results.filter((r) => r.status === "fulfilled");
      assert.equal(fulfilled.length, 1);
      for (const result of results) {
        if (result.status === "fulfilled") continue;
        const error = result.reason;
        assert.ok(error instanceof CoreError, String(error));
        assert.equal(error.code, "hitl_unknown");
        assert.equal(error.data.reason, "unknown_or_answered");
      }
      // Only one "y" reached the runner: the second prompt takes the next answer.
      const next = await inputRequired(task.id, p1);
      await answer(task, next.prompt?.id as string, "z");
      const done = await ended(task.id);
      assert.match(stdoutOf(done), /answers: y,z\n/);
    });
  });

  it("an answer after the process exited → no_live_binding", async () => {
    await withTask(["ask"], async ({ task }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      await answer(task, promptId, "y");
      const done = await ended(task.id);
      assert.equal(done.state, "completed");
      await assertRefused(answer(task, promptId, "y"), "hitl_unknown", "no_live_binding", promptId);
    });
  });

  it("an answer after endInput closed the command's stdin → no_live_binding", async () => {
    await withTask(["ask"], async ({ task }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      dispatcher.endInput(task.id);
      await assertRefused(answer(task, promptId, "y"), "hitl_unknown", "no_live_binding", promptId);
      const done = await ended(task.id);
      assert.equal(done.state, "failed");
      assert.equal(done.exitCode, 1);
      assert.match(stdoutOf(done), /no answer\n/);
    });
  });

  it("an answer for an unknown task → task_not_found; with another contextId → context_mismatch", async () => {
    await withTask(["ask-slow"], async ({ task }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      const response = { prompt_id: promptId, payload: { text: "y" } };
      await assertRefused(
        dispatcher.answer({ taskId: "no-such-task", contextId: task.contextId, response }),
        "task_not_found",
      );
      await assertRefused(
        dispatcher.answer({ taskId: undefined, contextId: task.contextId, response }),
        "task_not_found",
      );
      await assertRefused(
        dispatcher.answer({ taskId: task.id, contextId: "another-context", response }),
        "hitl_unknown",
        "context_mismatch",
        promptId,
      );
      assert.equal(dispatcher.get(task.id, false).state, "input-required");
    });
  });

  it("an invalid payload → hitl_invalid with validation_errors, and the prompt stays open for a valid one", async () => {
    await withTask(["ask-slow"], async ({ task }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      const error = await assertRefused(answer(task, promptId, "y\u0007"), "hitl_invalid", undefined, promptId);
      assert.equal(error.data.validation_errors?.[0]?.path, "/text");
      const still = dispatcher.get(task.id, false);
      assert.equal(still.state, "input-required");
      assert.equal(still.prompt?.id, promptId);
      await answer(task, promptId, "ok");
      const done = await ended(task.id);
      assert.equal(done.state, "completed");
      assert.match(stdoutOf(done), /got ok\n/);
    });
  });

  it("an answer after the deadline, while the kill grace period runs → deadline_passed", async () => {
    await withTask(["ask-ignore-term", { timeoutSeconds: 1 }], async ({ task }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      assert.equal(open.prompt?.deadline, open.deadline);
      const wait = Date.parse(open.deadline as string) + 150 - Date.now();
      await sleep(Math.max(0, wait));
      const now = dispatcher.get(task.id, false);
      assert.equal(now.state, "input-required", "still alive after SIGTERM (it ignores it)");
      await assertRefused(answer(task, promptId, "y"), "hitl_unknown", "deadline_passed", promptId);
      const done = await ended(task.id);
      assert.equal(done.state, "failed");
      assert.equal(done.reason, "timeout");
      assert.equal(done.failKind, "application");
      assert.equal(done.signal, "SIGKILL");
    });
  });

  it("close-stdin: a failed delivery → delivery_failed, and the same prompt opens again", async () => {
    await withTask(["close-stdin"], async ({ task, states }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      await sleep(50); // let the runner close its end of the pipe
      const before = states.length;
      await assertRefused(answer(task, promptId, "y"), "hitl_unknown", "delivery_failed", promptId);
      const again = await waitFor(task.id, "reopened prompt", (t) => t.state === "input-required");
      assert.equal(again.prompt?.id, promptId);
      assert.equal(again.prompt?.text, "Proceed? [y/N]");
      assert.deepEqual(states.slice(before), ["working", "input-required"]);
    });
  });

  it("chatty: a marker followed by more output never becomes input-required", async () => {
    await withTask(["chatty"], async ({ task, states }) => {
      const done = await ended(task.id);
      assert.equal(done.state, "completed");
      assert.ok(!states.includes("input-required"), `states: ${states.join(", ")}`);
      assert.match(stdoutOf(done), /tick 50\n$/);
    });
  });

  it("output after a prompt withdraws it: back to working, and an answer to it is stale", async () => {
    await withTask(["ask-then-more"], async ({ task, states }) => {
      const open = await inputRequired(task.id);
      const promptId = open.prompt?.id as string;
      const back = await waitFor(task.id, "withdrawal", (t) => t.state === "working" && t.prompt === undefined);
      assert.equal(back.prompt, undefined);
      assert.deepEqual(states.slice(states.indexOf("input-required")), ["input-required", "working"]);
      await assertRefused(answer(task, promptId, "y"), "hitl_unknown", "unknown_or_answered", promptId);
      // An absence needs a time window: nothing tells when the settle check has found no prompt. This window opens
      // after the output that withdrew the prompt arrived, on the event loop that runs the dispatcher, so the settle
      // timer, set before it for a third of the time, fires first however late both fire on a loaded machine.
      await sleep(SETTLE_MS * 3);
      assert.equal(dispatcher.get(task.id, false).state, "working", "the output after the prompt is no new prompt");
    });
  });
});

describe("dispatcher: when text-line input is off", () => {
  it('input_mode "text-line" without HITL activated → envelope_rejected, nothing runs', () => {
    const analysis = analyzeInput(envelope("ask"));
    assert.ok(analysis.valid);
    const count = dispatcher.list().length;
    assert.throws(
      () => dispatcher.submit({ analysis, hitlActivated: false }),
      (error: unknown) => {
        assert.ok(error instanceof CoreError);
        assert.equal(error.code, "envelope_rejected");
        const problem = error.data.errors?.[0];
        assert.equal(problem?.code, "hitl_not_activated");
        assert.match(problem?.path ?? "", /\/input_mode$/);
        return true;
      },
    );
    assert.equal(dispatcher.list().length, count);
  });

  it("without input_mode, ask reads EOF at once: no prompt, failed with exit code 1", async () => {
    await withTask(["ask", { inputMode: false, timeoutSeconds: 2 }], async ({ task, states }) => {
      const done = await ended(task.id);
      assert.equal(done.textLine, false);
      assert.ok(!states.includes("input-required"), `states: ${states.join(", ")}`);
      assert.equal(done.state, "failed");
      assert.equal(done.exitCode, 1);
      assert.match(stdoutOf(done), /no answer\n/);
    });
  });

  it("without input_mode, a prompt that waits (ask-slow) is never raised: it runs into its deadline", async () => {
    await withTask(["ask-slow", { inputMode: false, timeoutSeconds: 2 }], async ({ task, states }) => {
      const done = await ended(task.id);
      assert.ok(!states.includes("input-required"), `states: ${states.join(", ")}`);
      assert.equal(done.state, "failed");
      assert.equal(done.reason, "timeout");
      assert.equal(done.prompt, undefined);
    });
  });

  it("without input_mode, an answer gets no_live_binding", async () => {
    await withTask(["ask-slow", { inputMode: false, timeoutSeconds: 5 }], async ({ task }) => {
      await sleep(SETTLE_MS * 3);
      const fake = "f7d4b1c0-9b25-4e8c-a4ce-3d6a51e8a772";
      await assertRefused(answer(task, fake, "y"), "hitl_unknown", "no_live_binding", fake);
    });
  });

  it("forceTextLine (run --input-mode text-line) turns prompts on for an envelope without the field", async () => {
    await withTask(["ask", { inputMode: false, forceTextLine: true }], async ({ task }) => {
      const open = await inputRequired(task.id);
      assert.equal(open.textLine, true);
      assert.equal(open.prompt?.text, "Continue? [y/N]");
      await answer(task, open.prompt?.id as string, "y");
      const done = await ended(task.id);
      assert.equal(done.state, "completed");
    });
  });
});

describe("dispatcher: the settle window", () => {
  it("raises the prompt even when the settle timer fires before the dispatcher's clock has moved settleMs", async () => {
    // Timers and the dispatcher's `now` are different clocks; here `now` runs at 0.9× real time, so the timer set
    // for settleMs fires when the clock says only 90 ms of quiet. The prompt is due 10 ms of clock time later.
    const t0 = Date.now();
    const slow = new Dispatcher({
      store: new MemoryStore(),
      workspace: WORKSPACE,
      settleMs: SETTLE_MS,
      now: () => t0 + Math.floor((Date.now() - t0) * 0.9),
    });
    try {
      const analysis = analyzeInput(envelope("ask-slow"));
      assert.ok(analysis.valid);
      const task = slow.submit({ analysis, hitlActivated: true });
      const open = await inputRequired(task.id, undefined, slow);
      assert.equal(open.prompt?.text, "Proceed? [y/N]");
    } finally {
      await slow.shutdown();
    }
  });
});
