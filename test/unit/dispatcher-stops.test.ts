// Late cancels, late prompts and waiting tasks: the final state says what really happened (CONTRACT 3.1, 3.3, 4).
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { CoreError } from "../../src/core/errors.js";
import { Dispatcher, type TaskView } from "../../src/core/task/dispatcher.js";
import { type RunningCommand, spawnCommand } from "../../src/core/task/process.js";
import type { TaskState } from "../../src/core/task/task.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "../helpers/cli.js";
import { goneWithin } from "../helpers/processes.js";

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

/** Resolves when the task `id()` names prints a chunk that includes `text`. */
function printed(dispatcher: Dispatcher, id: () => string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const off = dispatcher.subscribe((event) => {
      if (event.type === "output" && event.taskId === id() && event.text.includes(text)) {
        off();
        resolve();
      }
    });
  });
}

const notCancelable = (error: unknown) => error instanceof CoreError && error.code === "task_not_cancelable";

describe("Dispatcher: stops that come too late", { timeout: 30_000 }, () => {
  /** Every command the dispatcher spawns, by task id, to wait on its exit. */
  const commands = new Map<string, RunningCommand>();
  const dispatcher = new Dispatcher({
    store: new MemoryStore(),
    workspace: FIXTURES,
    settleMs: 100,
    killGraceMs: 1500,
    spawn: (spec, handlers, containment) => {
      const command = spawnCommand(spec, handlers, containment);
      commands.set(spec.env.AIWG_A2A_TASK_ID as string, command);
      return command;
    },
  });
  after(() => dispatcher.shutdown());

  it("a cancel after the deadline is refused, and the task fails as timed out", async () => {
    let id = "";
    const termed = printed(dispatcher, () => id, "got SIGTERM");
    const task = dispatcher.submit({ analysis: envelope("ignore-term", 1), hitlActivated: false });
    id = task.id;
    await termed; // past the deadline, inside the kill grace: the runner says it ignores the SIGTERM
    assert.throws(() => dispatcher.cancel(task.id), notCancelable);
    const ended = await endOf(dispatcher, task.id);
    assert.deepEqual([ended.state, ended.failKind, ended.reason], ["failed", "application", "timeout"]);
  });

  it("a cancel after the command exited 0 (a helper had its stdout open) is refused; the task completes", async () => {
    let id = "";
    const said = printed(dispatcher, () => id, "helper");
    const task = dispatcher.submit({ analysis: envelope("exit-leave-stdout", 30), hitlActivated: false });
    id = task.id;
    await said; // its one line, written just before it exits
    const command = commands.get(task.id);
    // The runner has exited (its helper, which held the pipe open, is killed with it: CONTRACT 3.2).
    assert.ok(await goneWithin(() => command?.running ?? true, 5000), "the runner exited");
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
