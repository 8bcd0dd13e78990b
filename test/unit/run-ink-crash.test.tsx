// A crash inside the screen: the task is canceled (its process group dies), the terminal is restored, exit 4.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { Dispatcher } from "../../src/core/task/dispatcher.js";
import { MemoryStore } from "../../src/store/memory.js";
import type { ScreenProps } from "../../src/ui/ink/components.js";
import { runScreen } from "../../src/ui/screen.js";
import { procStat } from "../helpers/processes.js";
import { fakeTerminal } from "../helpers/terminal.js";

const WORKSPACE = fileURLToPath(new URL("../fixtures/workspace", import.meta.url));

/** Draws nothing until the command's first output, then throws. */
function Exploding({ model }: ScreenProps) {
  if (model.bytes > 0) throw new Error("the screen broke");
  return null;
}

describe("runScreen when the live area crashes", () => {
  it("cancels the task, restores raw mode and the cursor, and returns 4", async () => {
    const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: WORKSPACE, maxConcurrent: 1 });
    const analysis = analyzeInput({
      adapter: "sandbox-agent-runner",
      mode: "plan",
      working_dir: "pid-hang",
      timeout_seconds: 30,
      command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
    });
    const terminal = fakeTerminal();
    let pid: number | undefined;
    dispatcher.subscribe((event) => {
      const printed = event.type === "output" ? /pid (\d+)/.exec(event.text) : null;
      if (printed) pid = Number(printed[1]);
    });
    const code = await runScreen(
      dispatcher,
      analysis,
      { file: "x.json", inputMode: undefined, answers: [], Screen: Exploding },
      terminal.io,
      () => 3,
    );
    assert.equal(code, 4);
    const [task] = dispatcher.list();
    assert.ok(task, "a task was dispatched");
    assert.equal(task.state, "canceled");
    assert.ok(pid !== undefined, "the runner was started");
    const state = procStat(pid)?.[0];
    assert.ok(state === undefined || state === "Z", `the runner is ${state}`);
    assert.ok(terminal.written().includes("\u001b[?25h"), "the cursor is shown again");
    if (terminal.rawModes.includes(true)) assert.equal(terminal.rawModes.at(-1), false, "raw mode is off again");
  });
});
