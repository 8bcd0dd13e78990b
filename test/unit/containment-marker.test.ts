// The marker guard's /proc scan on a fake /proc (CONTRACT 3.2; docs/security.md "Containment"): which processes it
// finds by AIWG_A2A_TASK_ID + AIWG_A2A_INSTANCE_ID, and which it never touches.
import assert from "node:assert/strict";
import { afterEach, beforeEach, describe, it } from "node:test";
import { findMarked, marksOf, signalMarked } from "../../src/core/containment/marker.js";
import { FakeProc } from "../helpers/fake-proc.js";

const marks = { taskId: "task-1", instanceId: "inst-1" };
const env = (taskId = marks.taskId, instanceId = marks.instanceId, extra: Record<string, string> = {}) => ({
  PATH: "/usr/bin",
  ...extra,
  AIWG_A2A_TASK_ID: taskId,
  AIWG_A2A_INSTANCE_ID: instanceId,
});

describe("marker scan", () => {
  let proc: FakeProc;
  beforeEach(() => {
    proc = new FakeProc();
  });
  afterEach(() => proc.cleanup());

  const found = (options = {}) =>
    findMarked(marks, proc.host, options)
      .map((p) => p.pid)
      .sort((a, b) => a - b);

  it("finds every live process carrying both marks, wherever its group", () => {
    proc.add(100, { env: env() });
    proc.add(101, { pgrp: 101, env: env() }); // left the group (setsid)
    proc.add(102, { env: env(marks.taskId, marks.instanceId, { AIWG_A2A_MESSAGE: "x".repeat(300_000) }) });
    proc.add(200, { env: { PATH: "/usr/bin" } });
    assert.deepEqual(found(), [100, 101, 102]);
  });

  it("needs both marks, as whole entries", () => {
    proc.add(100, { env: env(marks.taskId, "other-instance") });
    proc.add(101, { env: env("other-task") });
    proc.add(102, { env: env(`${marks.taskId}-longer`) }); // the id as a prefix of another
    proc.add(103, { env: { AIWG_A2A_TASK_ID: `${marks.taskId}x`, AIWG_A2A_INSTANCE_ID: marks.instanceId } });
    // The entry's text inside another variable's value is no entry.
    proc.add(104, {
      env: Buffer.from(`X=AIWG_A2A_TASK_ID=${marks.taskId}\0Y=AIWG_A2A_INSTANCE_ID=${marks.instanceId}\0`),
    });
    assert.deepEqual(found(), []);
  });

  it("an entry at the very start of the block counts", () => {
    proc.add(100, {
      env: Buffer.from(`AIWG_A2A_TASK_ID=${marks.taskId}\0AIWG_A2A_INSTANCE_ID=${marks.instanceId}\0`),
    });
    assert.deepEqual(found(), [100]);
  });

  it("never PID 1, never itself, never a zombie, never a process older than the task's runner", () => {
    proc.add(1, { env: env() });
    proc.add(proc.self, { env: env() });
    proc.add(100, { env: env(), state: "Z" });
    proc.add(101, { env: env(), start: "500" });
    proc.add(102, { env: env(), start: "900" });
    proc.add(103, { env: env(), start: "901" });
    assert.deepEqual(found({ notBefore: 900 }), [102, 103]);
    assert.equal(signalMarked(marks, "SIGKILL", proc.host), 3); // 101, 102, 103 without a lower bound
    assert.ok(!proc.signals.some(([pid]) => pid === 1 || pid === proc.self || pid === 100));
  });

  it("signals each match once and says how many; a process that vanished is skipped", () => {
    proc.add(100, { env: env() });
    proc.add(101, { env: env() });
    assert.equal(signalMarked(marks, "SIGTERM", proc.host), 2);
    assert.deepEqual(proc.signals, [
      [100, "SIGTERM"],
      [101, "SIGTERM"],
    ]);
    proc.remove(101);
    assert.equal(signalMarked(marks, "SIGKILL", proc.host), 1);
    assert.equal(signalMarked(marks, "SIGKILL", proc.host), 0, "a killed process is a zombie: not found again");
  });

  it("no /proc: finds nothing", () => {
    proc.cleanup();
    assert.deepEqual(found(), []);
  });

  it("marksOf reads both marks from a spawn's environment", () => {
    assert.deepEqual(marksOf(env()), marks);
    assert.equal(marksOf({ AIWG_A2A_TASK_ID: "t" }), undefined);
    assert.equal(marksOf({ AIWG_A2A_TASK_ID: "", AIWG_A2A_INSTANCE_ID: "i" }), undefined);
  });
});
