// Trusting nothing on disk (issue 25 items 4, 6 and 7; CONTRACT 5.5; docs/security.md "Trusting nothing on disk"),
// through the built binary: a forged row of state.db kills nothing it can't prove the tool started; the state dir
// and its files are private; the lock holds the directory, not only state.db; a task cgroup goes with the cgroups a
// runner made inside it.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { DB_FILE } from "../../src/store/open.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { FIXTURES, runCli } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { goneWithin, HAS_PROC, killPids, pidRunning, procStat, survivorsAfter } from "../helpers/processes.js";
import { editDb, tempDir } from "../helpers/state-dir.js";
import type { TaskEvent, Wire } from "../helpers/wire.js";

const bridges: RpcBridge[] = [];
const strangers: ChildProcess[] = [];
const cleanups: Array<() => void> = [];
after(async () => {
  for (const bridge of bridges) await bridge.close();
  for (const child of strangers) child.kill("SIGKILL");
  for (const cleanup of cleanups) cleanup();
});

async function bridgeOn(stateDir: string, ...args: string[]): Promise<RpcBridge> {
  const bridge = startBridge({ args: ["--state-dir", stateDir, ...args] });
  bridges.push(bridge);
  await bridge.ready();
  return bridge;
}

const serveOn = (stateDir: string) => runCli(["serve", "--stdio", "--workspace", FIXTURES, "--state-dir", stateDir]);

/** The guard a tool said it uses, from its stderr (`containment: <kind>`). */
const guardOf = (stderr: string) => /containment: (cgroup|marker|group)\n/.exec(stderr)?.[1];

/** The cgroup v2 directory this process is in (where the tool started by the test makes its task cgroups). */
function ownCgroupDir(): string | undefined {
  const path = readFileSync("/proc/self/cgroup", "utf8")
    .split("\n")
    .find((line) => line.startsWith("0::"))
    ?.slice(3);
  const mount = readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" "))
    .find((fields) => fields[fields.indexOf("-") + 1] === "cgroup2" && fields[3] === "/")?.[4];
  return path && mount ? join(mount, path) : undefined;
}

/** A process in a process group of its own that has nothing to do with any task. */
function stranger(): number {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { detached: true, stdio: "ignore" });
  strangers.push(child);
  return child.pid as number;
}

describe("a forged row of state.db (issue item 4)", { skip: !HAS_PROC && "reads /proc" }, () => {
  it("naming an unrelated process group and another cgroup: a restart kills neither and removes nothing", async (t) => {
    const dir = tempDir();
    const first = await bridgeOn(dir);
    const task = await first.call("message/send", envelopeParams("ok"));
    const cgroupGuard = guardOf(first.stderr) === "cgroup";
    await first.close();

    const pid = stranger();
    const start = procStat(pid)?.[19];
    assert.ok(start, "the stranger's start time");
    // Another cgroup named as the tool names its own, with the stranger in it (where this user may make one).
    let cgroup: string | undefined;
    const root = ownCgroupDir();
    if (cgroupGuard && root) {
      cgroup = join(root, `adapter-command-${randomUUID()}`);
      mkdirSync(cgroup);
      writeFileSync(join(cgroup, "cgroup.procs"), String(pid));
      const made = cgroup;
      cleanups.push(() => {
        process.kill(pid, "SIGKILL");
        for (let i = 0; i < 50 && existsSync(made); i++) {
          try {
            rmdirSync(made);
          } catch {
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
          }
        }
      });
    } else t.diagnostic("no writable cgroup v2 here: the forged row names a cgroup path only");
    const guard = { kind: "cgroup", path: cgroup ?? "/sys/fs/cgroup/adapter-command-forged" };
    editDb(dir, (db) => {
      const { detail } = db.prepare("SELECT detail FROM tasks WHERE id = ?").get(task.id) as { detail: string };
      db.prepare(
        "UPDATE tasks SET state = 'working', ended_seq = NULL, pid = ?, pid_start = ?, detail = ? WHERE id = ?",
      ).run(pid, start, JSON.stringify({ ...JSON.parse(detail), guard }), task.id);
    });

    const second = await bridgeOn(dir);
    const got = await second.call("tasks/get", { id: task.id });
    assert.equal(got.status.state, "failed");
    assert.match(JSON.stringify(got.status), /runtime_restarted|restarted/);
    assert.doesNotMatch(second.stderr, /leftover processes/, "nothing was killed");
    assert.equal(await goneWithin(() => pidRunning(pid), 1000), false, "the unrelated process group still runs");
    if (cgroup) assert.ok(existsSync(cgroup), "the other cgroup is still there");
    await second.close();
  });
});

describe("the state dir and its files are private (issue item 4)", () => {
  it("state.db, its log and the owner file are created 0600", async () => {
    const dir = tempDir();
    const bridge = await bridgeOn(dir);
    await bridge.call("message/send", envelopeParams("ok"));
    for (const name of [DB_FILE, `${DB_FILE}-wal`, "owner.json"]) {
      const path = join(dir, name);
      if (!existsSync(path)) continue;
      assert.equal((statSync(path).mode & 0o777).toString(8), "600", name);
    }
    assert.ok(existsSync(join(dir, DB_FILE)));
    await bridge.close();
  });

  it("an existing state.db that others may read is made 0600", async () => {
    const dir = tempDir();
    await (await bridgeOn(dir)).close();
    chmodSync(join(dir, DB_FILE), 0o644);
    const bridge = await bridgeOn(dir);
    assert.equal((statSync(join(dir, DB_FILE)).mode & 0o777).toString(8), "600");
    await bridge.close();
  });

  for (const [mode, who] of [
    [0o770, "its group"],
    [0o757, "every user"],
    [0o777, "its group and every user"],
  ] as const) {
    it(`a directory of mode ${mode.toString(8)} is refused: exit 2 with the reason, nothing written`, async () => {
      const dir = tempDir();
      chmodSync(dir, mode);
      const result = await serveOn(dir);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, new RegExp(`can be written by ${who} \\(mode 0${mode.toString(8)}\\).*chmod go-w`));
      assert.ok(!existsSync(join(dir, DB_FILE)), "no state.db was made");
    });
  }
});

describe("the lock holds the directory, not only state.db (issue item 7)", {
  skip: process.platform !== "linux" && "abstract sockets are Linux's",
}, () => {
  it("with state.db moved aside while a runtime runs, a second runtime on the same directory exits 2 naming it", async () => {
    const dir = tempDir();
    const first = await bridgeOn(dir);
    const task = await first.call("message/send", envelopeParams("ok"));
    for (const name of [DB_FILE, `${DB_FILE}-wal`])
      if (existsSync(join(dir, name))) renameSync(join(dir, name), join(dir, `${name}.aside`));
    const second = await serveOn(dir);
    assert.equal(second.code, 2, second.stderr);
    assert.equal(second.stdout, "");
    assert.match(second.stderr, new RegExp(`in use by another adapter-command runtime \\(pid ${first.pid}\\b`));
    assert.ok(!existsSync(join(dir, DB_FILE)), "the second runtime made no state.db");
    // The first goes on serving from the file it holds.
    assert.equal((await first.call("tasks/get", { id: task.id })).status.state, "completed");
    await first.close();
    // Once it has gone, the directory is free again.
    const third = await bridgeOn(dir);
    await third.close();
    assert.equal(third.exitStatus?.code, 0, third.stderr);
  });
});

describe("a runner that makes cgroups inside its task's cgroup (issue item 6)", {
  skip: !HAS_PROC && "reads /proc",
}, () => {
  for (const end of ["exit", "cancel"] as const) {
    it(`${end}: the task cgroup is removed with everything under it, and the child inside is killed`, async (t) => {
      const bridge = startBridge({ args: [] });
      bridges.push(bridge);
      await bridge.ready();
      if (guardOf(bridge.stderr) !== "cgroup")
        return t.skip("needs the cgroup guard (cgroup v2 this user may write, as root in CI)");
      const task = await bridge.call(
        "message/stream",
        envelopeParams("cgroup-child", { text: end === "exit" ? "exit" : "run on" }),
      );
      let text = "";
      while (!text.includes("ready\n")) {
        const event: TaskEvent = await bridge.nextEvent(
          task.id,
          (e) => e.kind === "artifact-update" || (e.kind === "status-update" && e.final === true),
        );
        assert.ok(event.kind === "artifact-update", JSON.stringify(event));
        if (event.artifact.artifactId === "stdout")
          text += event.artifact.parts.map((part: Wire) => part.text).join("");
      }
      const cgroup = /^cgroup (.+)$/m.exec(text)?.[1] as string;
      const child = Number(/^child (\d+)$/m.exec(text)?.[1]);
      cleanups.push(() => killPids([child]));
      // The runner says "ready" only once it made inner/deeper and moved its child there (either failing would fail the
      // task, and "exit" must end completed). One that runs on shows them; one that exits may be cleaned away already.
      if (end === "cancel") {
        assert.ok(existsSync(join(cgroup, "inner", "deeper")), "the runner made cgroups inside its own");
        await bridge.call("tasks/cancel", { id: task.id });
      }
      const final = await bridge.nextEvent(task.id, (e) => e.kind === "status-update" && e.final === true);
      assert.equal(final.status.state, end === "exit" ? "completed" : "canceled");
      assert.deepEqual(await survivorsAfter([child], 5000), [], "the child in the inner cgroup is killed");
      assert.ok(await goneWithin(() => existsSync(cgroup), 5000), `${cgroup} is removed`);
    });
  }
});
