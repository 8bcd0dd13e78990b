// The settle check of a task's prompt detector (src/core/task/task-run.ts) against a clock that is set back: a
// prompt that has been quiet for the settle window is raised, whatever the clock says a moment later.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Emitter } from "../../src/core/task/events.js";
import type { RunningCommand } from "../../src/core/task/process.js";
import { newTaskRecord } from "../../src/core/task/task-record.js";
import { TaskRun } from "../../src/core/task/task-run.js";
import { MemoryStore } from "../../src/store/memory.js";

const SETTLE_MS = 100;

describe("the settle check's clock", () => {
  it("a prompt quiet for the settle window is raised even when the clock is set back right after that reading", async () => {
    // The clock: real time until the prompt is written; then the output's time T, the first reading after it
    // T + SETTLE_MS (quiet for exactly the window), and every reading after that T + SETTLE_MS - 1 (set back 1 ms,
    // as a wall clock can be). Read twice for one decision, such a clock finds the output quiet and then not.
    const T = Date.now() + 60_000;
    let script: number[] | undefined;
    // The third reading after the output comes once the check has decided (raising the prompt stamps the record).
    let decided!: () => void;
    const readAfterDecision = new Promise<void>((resolve) => (decided = resolve));
    const now = () => {
      if (script === undefined) return Date.now();
      if (script.length === 1) decided();
      return script.length > 1 ? (script.shift() as number) : (script[0] as number);
    };
    const record = newTaskRecord({
      message: undefined,
      dispatch: "adapter-command",
      extensions: [],
      instanceId: "test",
      at: new Date().toISOString(),
      outputLimit: 1 << 20,
    });
    record.textLine = true;
    record.deadline = new Date(T + 3_600_000).toISOString();
    const run = new TaskRun(record, { store: new MemoryStore(), emitter: new Emitter(), now });
    run.watchForPrompts(SETTLE_MS);
    run.move("working");
    run.command = { running: true, stopReason: null } as unknown as RunningCommand;
    script = [T, T + SETTLE_MS, T + SETTLE_MS - 1];
    run.output("stdout", Buffer.from("Continue? [y/N] "));
    await readAfterDecision;
    await new Promise(setImmediate);
    run.stopWatching();
    assert.equal(record.state, "input-required", "the prompt was not raised");
    assert.equal(record.prompt?.text, "Continue? [y/N]");
  });
});
