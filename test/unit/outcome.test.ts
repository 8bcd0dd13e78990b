// outcomeOf: how a finished command becomes the task's final state (CONTRACT section 3.3).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outcomeOf } from "../../src/core/task/outcome.js";
import type { CommandExit } from "../../src/core/task/process.js";

const exit = (fields: Partial<CommandExit>): CommandExit => ({
  exitCode: null,
  signal: null,
  stoppedBy: null,
  ...fields,
});

describe("outcomeOf", () => {
  it("exit code 0 → completed", () => {
    const outcome = outcomeOf(exit({ exitCode: 0 }), 300);
    assert.equal(outcome.state, "completed");
    assert.equal(outcome.failKind, undefined);
    assert.equal(outcome.exitCode, 0);
  });
  it("a non-zero exit → failed, application, with the code in words", () => {
    const outcome = outcomeOf(exit({ exitCode: 3 }), 300);
    assert.deepEqual(
      [outcome.state, outcome.failKind, outcome.reason, outcome.exitCode],
      ["failed", "application", "exit", 3],
    );
    assert.match(outcome.text, /code 3/);
  });
  it("death by a signal the tool did not send → failed, application", () => {
    const outcome = outcomeOf(exit({ signal: "SIGKILL" }), 300);
    assert.deepEqual(
      [outcome.state, outcome.failKind, outcome.reason, outcome.signal],
      ["failed", "application", "signal", "SIGKILL"],
    );
  });
  it("the deadline → failed, application, reason timeout, even though the tool's signal ended it", () => {
    const outcome = outcomeOf(exit({ signal: "SIGTERM", stoppedBy: "timeout" }), 5);
    assert.deepEqual([outcome.state, outcome.failKind, outcome.reason], ["failed", "application", "timeout"]);
    assert.match(outcome.text, /5 s/);
  });
  it("a cancel → canceled, whatever the command's exit", () => {
    assert.equal(outcomeOf(exit({ signal: "SIGTERM", stoppedBy: "cancel" }), 5).state, "canceled");
  });
  it("a spawn error → failed, infrastructure", () => {
    const error = Object.assign(new Error("spawn EACCES"), { code: "EACCES" });
    const outcome = outcomeOf(exit({ spawnError: error }), 5);
    assert.deepEqual([outcome.state, outcome.failKind, outcome.reason], ["failed", "infrastructure", "spawn_failed"]);
    assert.match(outcome.text, /EACCES/);
  });
});
