// Restart cleanup by identity on a fake /proc and cgroup tree (CONTRACT 5.5; docs/security.md "Containment"):
// killLeftovers(record) kills the group only while its leader is the runner on every field (start time, group,
// the task's marks in its environment), the task's cgroup only when the path is one of ours inside the tool's cgroup
// root with a process of the task in it, and the marked processes whether or not the leader lives; never PID 0/1 or
// itself. No row is trusted: a forged one kills nothing (issue 25 item 4).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { signalTrace, traceAlive } from "../../src/core/containment/trace.js";
import { killLeftovers, type LeftoverRecord } from "../../src/core/task/process-identity.js";
import { FakeProc } from "../helpers/fake-proc.js";

const ids = { id: "task-9", instanceId: "inst-9" };
const marked = { AIWG_A2A_TASK_ID: ids.id, AIWG_A2A_INSTANCE_ID: ids.instanceId };

describe("killLeftovers", () => {
  let proc: FakeProc;
  beforeEach(() => {
    proc = new FakeProc();
  });
  afterEach(() => proc.cleanup());

  it("leader alive with the same start time: its group, and every marked process", () => {
    proc.add(500, { pgrp: 500, start: "1000", env: marked });
    proc.add(501, { pgrp: 501, start: "1001", env: marked }); // left the group
    proc.add(600, { start: "1002", env: {} });
    const record: LeftoverRecord = { ...ids, pid: 500, pidStart: "1000" };
    assert.equal(killLeftovers(record, proc.host), true);
    assert.deepEqual(proc.signals, [
      [-500, "SIGKILL"],
      [500, "SIGKILL"],
      [501, "SIGKILL"],
    ]);
  });

  it("the leader's pid reused (another start time): not its group, but still the marked processes", () => {
    proc.add(500, { start: "7777", env: {} });
    proc.add(501, { pgrp: 501, start: "1001", env: marked });
    killLeftovers({ ...ids, pid: 500, pidStart: "1000" }, proc.host);
    assert.deepEqual(proc.signals, [[501, "SIGKILL"]]);
  });

  it("the leader gone: the marked descendants are still found (but none older than the runner)", () => {
    proc.add(501, { pgrp: 501, start: "1001", env: marked });
    proc.add(502, { pgrp: 502, start: "999", env: marked });
    assert.equal(killLeftovers({ ...ids, pid: 500, pidStart: "1000" }, proc.host), true);
    assert.deepEqual(proc.signals, [[501, "SIGKILL"]]);
  });

  it("never PID 0/1 nor itself, whatever the record says", () => {
    proc.add(1, { start: "1000", env: marked });
    assert.equal(killLeftovers({ ...ids, pid: 1, pidStart: "1000" }, proc.host), false);
    assert.equal(killLeftovers({ ...ids, pid: 0, pidStart: "1000" }, proc.host), false);
    proc.add(proc.self, { start: "1000", env: marked });
    assert.equal(killLeftovers({ ...ids, pid: proc.self, pidStart: "1000" }, proc.host), false);
    assert.deepEqual(proc.signals, []);
  });

  it("a record without a start time never has its group killed", () => {
    proc.add(500, { start: "1000", env: {} });
    assert.equal(killLeftovers({ ...ids, pid: 500 }, proc.host), false);
    assert.deepEqual(proc.signals, []);
  });

  it("the task's cgroup is killed when the path is ours, inside the tool's cgroup root, with a process of the task in it", () => {
    const root = proc.cgroupMount;
    proc.add(700, { start: "1000", env: marked });
    const ours = proc.cgroup("adapter-command-task-9", { procs: [700], populated: true });
    assert.equal(killLeftovers({ ...ids, guard: { kind: "cgroup", path: ours } }, proc.host, root), true);
    assert.equal(readFileSync(join(ours, "cgroup.kill"), "utf8"), "1");
    proc.add(701, { start: "1000", env: marked });
    const foreign = proc.cgroup("system.slice", { procs: [701], populated: true });
    killLeftovers({ ...ids, guard: { kind: "cgroup", path: foreign } }, proc.host, root);
    assert.equal(readFileSync(join(foreign, "cgroup.kill"), "utf8"), "", "a cgroup not ours is never killed");
    const sneaky = `${proc.cgroupMount}/x/../system.slice/adapter-command-x`;
    killLeftovers({ ...ids, guard: { kind: "cgroup", path: sneaky } }, proc.host, root);
  });

  it("a forged row kills nothing: an unrelated group's leader, another tool's cgroup, another task's marks", () => {
    const root = join(proc.cgroupMount, "tool");
    // The pid and start time of an unrelated process group, its leader carrying no marks of the task.
    proc.add(800, { start: "5000", env: { PATH: "/bin" } });
    proc.add(801, { pgrp: 800, start: "5001", env: {} });
    // A cgroup named like ours, holding processes that are not the task's: inside the root, and outside it.
    proc.add(900, { start: "6000", env: { AIWG_A2A_TASK_ID: "another", AIWG_A2A_INSTANCE_ID: ids.instanceId } });
    const inside = proc.cgroup("tool/adapter-command-other", { procs: [900], populated: true });
    proc.add(901, { start: "6001", env: marked });
    const outside = proc.cgroup("elsewhere/adapter-command-other", { procs: [901], populated: true });
    for (const path of [inside, outside])
      killLeftovers({ ...ids, pid: 800, pidStart: "5000", guard: { kind: "cgroup", path } }, proc.host, root);
    assert.deepEqual(
      proc.signals.filter(([pid]) => pid !== 901),
      [],
      "nothing but the task's own marked process",
    );
    for (const path of [inside, outside]) assert.equal(readFileSync(join(path, "cgroup.kill"), "utf8"), "");
    // A marker guard naming another task's ids is not followed: the row's own id and instance id are.
    proc.add(902, { start: "6002", env: { AIWG_A2A_TASK_ID: "other", AIWG_A2A_INSTANCE_ID: "x" } });
    killLeftovers({ ...ids, guard: { kind: "marker", taskId: "other", instanceId: "x" } }, proc.host);
    assert.ok(!proc.signals.some(([pid]) => pid === 902));
  });

  it("traceAlive: the runner by its start time, or anything a guard still finds", () => {
    proc.add(500, { start: "1000", env: {} });
    assert.equal(traceAlive({ pid: 500, pidStart: "1000", guards: [] }, proc.host), true);
    assert.equal(traceAlive({ pid: 500, pidStart: "999", guards: [] }, proc.host), false);
    proc.add(500, { start: "1000", state: "Z", env: {} });
    assert.equal(traceAlive({ pid: 500, pidStart: "1000", guards: [] }, proc.host), false, "a zombie has ended");
    const marker = { kind: "marker" as const, taskId: ids.id, instanceId: ids.instanceId };
    proc.add(501, { start: "1001", env: marked });
    assert.equal(traceAlive({ pid: 500, pidStart: "1000", guards: [marker] }, proc.host), true);
  });

  it("without /proc (macOS): only the watchdog signals the group unchecked; a restart never does", () => {
    const host = { ...proc.host, procRoot: join(proc.dir, "no-proc") };
    assert.equal(killLeftovers({ ...ids, pid: 500 }, host), false);
    assert.equal(signalTrace({ pid: 500, guards: [] }, "SIGTERM", host), 0);
    assert.deepEqual(proc.signals, []);
    assert.equal(signalTrace({ pid: 500, guards: [] }, "SIGTERM", host, true), 1);
    assert.deepEqual(proc.signals, [[-500, "SIGTERM"]]);
  });
});
