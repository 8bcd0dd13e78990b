// Leftover process groups of a crashed bridge (CONTRACT 5.5 --state-dir): on restart, a group is killed only when
// its leader is still the very process that was started (same pid and same start time), never a pid reused since.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { RpcBridge } from "../helpers/bridge.js";
import { sleep } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { HAS_PROC, killToolAndWatchdog, pidRunning, procStat } from "../helpers/processes.js";
import { editDb } from "../helpers/state-dir.js";
import type { Wire } from "../helpers/wire.js";

const temp = mkdtempSync(join(tmpdir(), "adapter-command-leftovers-"));
process.once("exit", () => rmSync(temp, { recursive: true, force: true }));
const started: number[] = [];
after(() => {
  for (const pid of started) {
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      // gone
    }
  }
});

/** Starts pid-hang on a bridge with `stateDir`, waits until it has printed its pid, then SIGKILLs the bridge and its watchdog. */
async function crashWithRunner(stateDir: string): Promise<{ taskId: string; pid: number }> {
  const bridge = new RpcBridge({ args: ["--state-dir", stateDir] });
  try {
    const task = await bridge.call(
      "message/send",
      envelopeParams("pid-hang", { envelope: { timeout_seconds: 60 }, configuration: { blocking: false } }),
    );
    let pid = 0;
    for (let i = 0; i < 200 && pid === 0; i++) {
      const got: Wire = await bridge.call("tasks/get", { id: task.id });
      const match = /pid (\d+)/.exec(
        (got.artifacts ?? []).flatMap((a: Wire) => a.parts.map((p: Wire) => p.text)).join(""),
      );
      if (match) pid = Number(match[1]);
      else await sleep(25);
    }
    assert.ok(pid > 0, "the runner printed its pid");
    started.push(pid);
    // The working status, pid and start time included, is written before any output can arrive. The bridge is
    // lost together with its watchdog, which would otherwise end the runner at once (CONTRACT 3.2).
    killToolAndWatchdog(bridge.pid);
    await bridge.waitExit();
    return { taskId: task.id, pid };
  } finally {
    bridge.kill();
  }
}

describe("leftover groups after a crash", { skip: !HAS_PROC && "needs /proc (process start times)" }, () => {
  it("the leader is still the same process (pid and start time match): its group is killed on restart", async () => {
    const stateDir = join(temp, "same");
    const { taskId, pid } = await crashWithRunner(stateDir);
    assert.ok(pidRunning(pid), "the runner outlived the crashed bridge and watchdog (its own process group)");
    const bridge = new RpcBridge({ args: ["--state-dir", stateDir] });
    try {
      const task = await bridge.call("tasks/get", { id: taskId });
      assert.equal(task.status.state, "failed");
      assert.equal(task.status.fail_kind, "infrastructure");
      for (let i = 0; i < 100 && pidRunning(pid); i++) await sleep(20);
      assert.equal(pidRunning(pid), false, "the leftover group was killed");
      assert.deepEqual(await bridge.close(), { code: 0, signal: null });
    } finally {
      bridge.kill();
    }
  });

  it("the pid now names another process (its start time differs): it is left alone", async () => {
    const stateDir = join(temp, "reused");
    const { taskId, pid } = await crashWithRunner(stateDir);
    const realStart = procStat(pid)?.[19];
    assert.ok(realStart, "the runner's start time is readable");
    // As if the pid had been reused by a process that is not ours: the recorded start time is not the live
    // process's, and nothing else names it either (the row's instance differs from the marker the process carries,
    // and no cgroup is recorded), so no identity matches (CONTRACT 5.5).
    const changed = editDb(stateDir, (db) =>
      db
        .prepare(
          "UPDATE tasks SET pid_start = ?, detail = json_set(json_remove(detail, '$.guard'), '$.instanceId', 'another-runtime') WHERE id = ? AND pid_start = ?",
        )
        .run(String(Number(realStart) - 1), taskId, realStart),
    );
    assert.equal(changed.changes, 1, "the recorded start time was changed");
    const bridge = new RpcBridge({ args: ["--state-dir", stateDir] });
    try {
      const task = await bridge.call("tasks/get", { id: taskId });
      assert.equal(task.status.state, "failed");
      assert.equal(task.status.fail_kind, "infrastructure");
      assert.equal(task.metadata[ADAPTER_URI].reason, "runtime_restarted");
      await sleep(300);
      assert.ok(pidRunning(pid), "a process that is not the one started was not killed");
      assert.deepEqual(await bridge.close(), { code: 0, signal: null });
      assert.ok(pidRunning(pid), "nor on the way out");
    } finally {
      bridge.kill();
      process.kill(-pid, "SIGKILL");
    }
  });
});
