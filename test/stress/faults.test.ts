// Faults from outside the tool, through a real bridge: a runner killed by someone else, a runner that closes stdout
// early, a working directory removed mid-run, an unusable --state-dir, a state database whose writes start failing.
import assert from "node:assert/strict";
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI as ADAPTER } from "../../src/core/uris.js";
import { RpcBridge } from "../helpers/bridge.js";
import { FIXTURES, runCli } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { mountTmpfs } from "../helpers/mounts.js";
import { groupAlive, pidRunning } from "../helpers/processes.js";
import { artifactText, type TaskEvent, type Wire } from "../helpers/wire.js";

const IS_ROOT = process.getuid?.() === 0;
const temp = mkdtempSync(join(tmpdir(), "adapter-command-faults-"));
process.once("exit", () => rmSync(temp, { recursive: true, force: true }));

/** A text that matches in an artifact-update of a task, once it arrives. */
async function outputMatching(bridge: RpcBridge, taskId: string, pattern: RegExp): Promise<RegExpExecArray> {
  const text = (event: Wire) => event.artifact.parts.map((p: Wire) => p.text).join("");
  const event = await bridge.nextEvent(taskId, (e) => e.kind === "artifact-update" && pattern.test(text(e)), 30_000);
  return pattern.exec(text(event)) as RegExpExecArray;
}

/** The final status-update of a task. */
async function finalEvent(bridge: RpcBridge, taskId: string): Promise<Wire> {
  return (await bridge.eventsUntilFinal(taskId, 30_000)).at(-1);
}

async function stream(bridge: RpcBridge, params: unknown): Promise<Wire> {
  return bridge.call("message/stream", params);
}

describe("faults: a runner that dies or misbehaves", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge();
  });
  after(() => bridge.kill());

  it("killed by SIGKILL from outside → failed, application, signal SIGKILL", async () => {
    const task = await stream(bridge, envelopeParams("pid-hang", { envelope: { timeout_seconds: 60 } }));
    const pid = Number((await outputMatching(bridge, task.id, /pid (\d+)/))[1]);
    assert.ok(pid > 0 && pidRunning(pid));
    process.kill(pid, "SIGKILL");
    const final = await finalEvent(bridge, task.id);
    assert.equal(final.status.state, "failed");
    assert.equal(final.status.fail_kind, "application");
    const got = await bridge.call("tasks/get", { id: task.id });
    const meta = got.metadata[ADAPTER];
    assert.equal(meta.signal, "SIGKILL");
    assert.equal(meta.exit_code, null);
    assert.equal(meta.fail_kind, "application");
    assert.equal(meta.reason, "signal");
    assert.match(got.status.message.parts[0].text, /SIGKILL/);
    assert.equal(groupAlive(pid), false, "nothing of its group is left");
  });

  it("close-stdout: stdout closed early while it runs on → completed, with all of its stderr", async () => {
    const task = await bridge.call("message/send", envelopeParams("close-stdout"));
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    assert.equal(artifactText(task, "stdout"), "bye\n");
    assert.equal(artifactText(task, "stderr"), "still running\n".repeat(5));
    assert.equal(task.metadata[ADAPTER].exit_code, 0);
  });

  it("the bridge still serves afterwards", async () => {
    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    assert.deepEqual(bridge.protocolProblems, []);
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});

describe("faults: the working directory removed mid-run", () => {
  const workspace = join(temp, "workspace");
  let bridge: RpcBridge;
  before(() => {
    mkdirSync(workspace, { recursive: true });
    for (const fixture of ["chatty", "read-late"])
      cpSync(join(FIXTURES, fixture), join(workspace, fixture), { recursive: true });
    bridge = new RpcBridge({ workspace });
  });
  after(() => bridge.kill());

  /** The end state follows the exit: 0 → completed, otherwise failed (application). */
  const assertTruthful = (task: Wire) => {
    const meta = task.metadata[ADAPTER];
    if (meta.exit_code === 0) assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    else {
      assert.equal(task.status.state, "failed", JSON.stringify(task.status));
      assert.equal(task.status.fail_kind, "application");
    }
  };

  it("a runner that needs nothing more from it (chatty) runs to its end: completed", async () => {
    const task = await stream(bridge, envelopeParams("chatty"));
    await outputMatching(bridge, task.id, /tick 1\n/);
    rmSync(join(workspace, "chatty"), { recursive: true, force: true });
    const final = await finalEvent(bridge, task.id);
    const got = await bridge.call("tasks/get", { id: task.id });
    assertTruthful(got);
    assert.equal(final.status.state, "completed");
    assert.match(artifactText(got, "stdout"), /tick 50\n$/);
  });

  it("a runner that reads its request after the removal (read-late) fails as it exits: failed, application", async () => {
    const task = await stream(bridge, envelopeParams("read-late"));
    await outputMatching(bridge, task.id, /started/);
    rmSync(join(workspace, "read-late"), { recursive: true, force: true });
    await finalEvent(bridge, task.id);
    const got = await bridge.call("tasks/get", { id: task.id });
    assertTruthful(got);
    assert.equal(got.metadata[ADAPTER].exit_code, 2);
    assert.match(artifactText(got, "stderr"), /ENOENT/);
  });

  it("a new task for the removed directory → failed, infrastructure (CONTRACT 3.3: missing working directory)", async () => {
    const task = await bridge.call("message/send", envelopeParams("chatty"));
    assert.equal(task.status.state, "failed", JSON.stringify(task.status));
    assert.equal(task.status.fail_kind, "infrastructure");
    assert.match(task.status.message.parts[0].text, /does not exist/);
  });

  it("the bridge did not crash: it answers agent/getCard and exits 0", async () => {
    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    assert.deepEqual(await bridge.close(), { code: 0, signal: null }, bridge.stderr);
  });
});

describe("faults: --state-dir that cannot be used", () => {
  const serve = (stateDir: string) => ["serve", "--stdio", "--workspace", FIXTURES, "--state-dir", stateDir];

  it("a path under a regular file (it can't be created) → exit 2, a message naming the directory", async () => {
    const file = join(temp, "a-file");
    writeFileSync(file, "not a directory\n");
    const stateDir = join(file, "state");
    const result = await runCli(serve(stateDir), { timeoutMs: 10_000 });
    assert.equal(result.code, 2, result.stderr);
    assert.ok(result.stderr.includes(stateDir), `stderr names ${stateDir}: ${result.stderr}`);
    assert.match(result.stderr, /state-dir/);
    assert.equal(result.stdout, "", "no protocol lines");
  });

  it("a path that is a regular file → exit 2, a message naming it", async () => {
    const file = join(temp, "state-file");
    writeFileSync(file, "");
    const result = await runCli(serve(file), { timeoutMs: 10_000 });
    assert.equal(result.code, 2, result.stderr);
    assert.ok(result.stderr.includes(file), result.stderr);
  });

  it("a read-only directory (chmod 0555) → exit 2, a message naming it", {
    skip: IS_ROOT && "as root, chmod does not stop writes (the path-under-a-file case above covers it)",
  }, async () => {
    const dir = join(temp, "read-only-state");
    mkdirSync(dir);
    chmodSync(dir, 0o555);
    const result = await runCli(serve(dir), { timeoutMs: 10_000 });
    chmodSync(dir, 0o755);
    assert.equal(result.code, 2, result.stderr);
    assert.ok(result.stderr.includes(dir), result.stderr);
  });
});

describe("faults: state database writes that start failing mid-run", () => {
  it("the disk fills up while a task prints: logged once, the task ends with all of its output, exit 0", async (t) => {
    const mount = mountTmpfs("1m");
    if (!mount) return t.skip("needs to mount a tmpfs (root); test/unit/sqlite-store.test.ts simulates a full disk");
    const stateDir = join(mount.dir, "state");
    const bridge = new RpcBridge({ args: ["--state-dir", stateDir] });
    try {
      const first = await bridge.call("message/send", envelopeParams("ok"));
      assert.equal(first.status.state, "completed");
      const ticking = await stream(bridge, envelopeParams("chatty"));
      await outputMatching(bridge, ticking.id, /tick 2\n/);
      try {
        for (let i = 0; ; i++) writeFileSync(join(mount.dir, `filler-${i}`), Buffer.alloc(64 * 1024));
      } catch (error) {
        assert.equal((error as NodeJS.ErrnoException).code, "ENOSPC");
      }
      const final = (await bridge.eventsUntilFinal(ticking.id)).at(-1) as TaskEvent;
      assert.equal(final.status.state, "completed");
      const got = await bridge.call("tasks/get", { id: ticking.id });
      assert.match(artifactText(got, "stdout"), /tick 1\n[\s\S]*tick 50\n$/);
      const third = await bridge.call("message/send", envelopeParams("exit3"));
      assert.equal(third.status.state, "failed");
      assert.equal((await bridge.call("tasks/list")).tasks.length, 3);
      const complaints = bridge.stderr.split("\n").filter((line) => line.includes("cannot write"));
      assert.equal(complaints.length, 1, `one log line about the database: ${bridge.stderr}`);
      assert.ok(complaints[0]?.includes(stateDir), complaints[0]);
      assert.deepEqual(await bridge.close(), { code: 0, signal: null }, bridge.stderr);
    } finally {
      bridge.kill();
      mount.unmount();
    }
  });
});
