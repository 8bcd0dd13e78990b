// Late cancels, late prompts and waiting tasks: the final state says what really happened (CONTRACT 3.1, 3.3, 4).
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Dispatcher, type TaskView } from "../../src/core/dispatcher.js";
import { analyzeInput } from "../../src/core/envelope.js";
import { CoreError } from "../../src/core/errors.js";
import type { TaskState } from "../../src/core/task.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "../helpers/cli.js";

const envelope = (name: string, timeoutSeconds: number, textLine = false) =>
  analyzeInput({
    adapter: "sandbox-agent-runner",
    mode: "assess",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
    working_dir: name,
    timeout_seconds: timeoutSeconds,
    ...(textLine ? { input_mode: "text-line" } : {}),
  });

function watch(dispatcher: Dispatcher, id: () => string | undefined): TaskState[] {
  const states: TaskState[] = [];
  dispatcher.subscribe((event) => {
    if (event.type === "status" && event.task.id === id()) states.push(event.task.state);
  });
  return states;
}

async function endOf(dispatcher: Dispatcher, id: string): Promise<TaskView> {
  await dispatcher.settled(id);
  return dispatcher.get(id);
}

const notCancelable = (error: unknown) => error instanceof CoreError && error.code === "task_not_cancelable";

describe("Dispatcher: stops that come too late", { timeout: 30_000 }, () => {
  const dispatcher = new Dispatcher({
    store: new MemoryStore(),
    workspace: FIXTURES,
    settleMs: 100,
    killGraceMs: 1500,
  });
  after(() => dispatcher.shutdown());

  it("a cancel after the deadline is refused, and the task fails as timed out", async () => {
    const task = dispatcher.submit({ analysis: envelope("ignore-term", 1), hitlActivated: false });
    await sleep(1300); // past the deadline, inside the kill grace: the runner ignores SIGTERM
    assert.throws(() => dispatcher.cancel(task.id), notCancelable);
    const ended = await endOf(dispatcher, task.id);
    assert.deepEqual([ended.state, ended.failKind, ended.reason], ["failed", "application", "timeout"]);
  });

  it("a cancel after the command exited 0 (a helper had its stdout open) is refused; the task completes", async () => {
    let id = "";
    const printed = new Promise<void>((resolve) => {
      const off = dispatcher.subscribe((event) => {
        if (event.type === "output" && event.taskId === id && event.text.includes("helper")) {
          off();
          resolve();
        }
      });
    });
    const task = dispatcher.submit({ analysis: envelope("exit-leave-stdout", 30), hitlActivated: false });
    id = task.id;
    await printed; // its one line, written just before it exits
    await sleep(400); // the runner has exited; its helper, which held the pipe open, was killed with it (CONTRACT 3.2)
    assert.throws(() => dispatcher.cancel(task.id), notCancelable);
    const ended = await endOf(dispatcher, task.id);
    assert.deepEqual([ended.state, ended.exitCode, ended.reason], ["completed", 0, "exit"]);
  });

  it("an answer while a canceled command dies out its grace period: refused, no_live_binding", async () => {
    const task = dispatcher.submit({ analysis: envelope("ask-ignore-term", 30, true), hitlActivated: true });
    const open = await dispatcher.until(task.id, (view) => view.state === "input-required");
    dispatcher.cancel(task.id); // it ignores SIGTERM: it lives on until SIGKILL
    const response = { prompt_id: open.prompt?.id, payload: { text: "y" } };
    await assert.rejects(
      dispatcher.answer({ taskId: task.id, contextId: task.contextId, response }),
      (error) => error instanceof CoreError && error.data.reason === "no_live_binding",
    );
    assert.equal((await endOf(dispatcher, task.id)).state, "canceled");
  });

  it("a prompt printed after the deadline is never raised", async () => {
    let id: string | undefined;
    const states = watch(dispatcher, () => id);
    const task = dispatcher.submit({ analysis: envelope("ask-after-deadline", 1, true), hitlActivated: true });
    id = task.id;
    const ended = await endOf(dispatcher, task.id);
    assert.deepEqual([ended.state, ended.reason], ["failed", "timeout"]);
    assert.ok(!states.includes("input-required"), states.join(" → "));
    assert.match(ended.output?.stdout.chunks.map((c) => c.text).join("") ?? "", /Continue\? \[y\/N\]/);
  });
});

describe("Dispatcher: a task that waited is placed again when it starts", { timeout: 30_000 }, () => {
  const workspace = mkdtempSync(join(tmpdir(), "adapter-command-wait-"));
  cpSync(join(FIXTURES, "ok"), join(workspace, "ok"), { recursive: true });
  cpSync(join(FIXTURES, "sleep300"), join(workspace, "sleep300"), { recursive: true });
  const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace, maxConcurrent: 1 });
  after(async () => {
    await dispatcher.shutdown();
    rmSync(workspace, { recursive: true, force: true });
  });

  it("its request, swapped for a symlink out of the workspace while it waited: failed, and nothing ran", async () => {
    const first = dispatcher.submit({ analysis: envelope("sleep300", 30), hitlActivated: false });
    const second = dispatcher.submit({ analysis: envelope("ok", 30), hitlActivated: false });
    const request = join(workspace, "ok", ".aiwg/ops/runs/req.json");
    rmSync(request);
    symlinkSync("/etc/hostname", request);
    assert.equal((await endOf(dispatcher, first.id)).state, "completed");
    const ended = await endOf(dispatcher, second.id);
    assert.deepEqual([ended.state, ended.failKind], ["failed", "infrastructure"]);
    assert.match(ended.statusText ?? "", /the workspace changed while the task waited: .*resolves to \/etc\/hostname/);
    assert.equal(ended.output?.stdout.totalBytes ?? 0, 0, "the runner never ran");
  });
});
