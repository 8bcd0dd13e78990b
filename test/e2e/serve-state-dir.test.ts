// `serve --stdio --state-dir` on real files (CONTRACT 5.5): one runtime per state dir, databases it must refuse, rows it
// must skip, and a disk that is full or read-only.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import Sqlite from "better-sqlite3";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { DB_FILE } from "../../src/store/open.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { AT_ONCE, FIXTURES, runCli, sleep } from "../helpers/cli.js";
import { answerParams, envelopeParams } from "../helpers/envelopes.js";
import { mountTmpfs, type Tmpfs } from "../helpers/mounts.js";
import { editDb, tempDir } from "../helpers/state-dir.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const bridges: RpcBridge[] = [];
const mounts: Tmpfs[] = [];
after(async () => {
  for (const bridge of bridges) await bridge.close();
  for (const mount of mounts) mount.unmount();
});

async function bridgeOn(stateDir: string): Promise<RpcBridge> {
  const bridge = startBridge({ args: ["--state-dir", stateDir, "--settle-ms", "100"] });
  bridges.push(bridge);
  await bridge.ready();
  return bridge;
}

const serveOn = (stateDir: string) => runCli(["serve", "--stdio", "--workspace", FIXTURES, "--state-dir", stateDir]);

/** Every file of a directory with its size, modification time and content hash. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir).map((name) => {
      const path = join(dir, name);
      const stat = statSync(path);
      return [name, `${stat.size} ${stat.mtimeMs} ${createHash("sha256").update(readFileSync(path)).digest("hex")}`];
    }),
  );
}

/** A state dir where `count` ok tasks completed; resolves with it and their ids. */
async function stateWithTasks(count: number): Promise<{ dir: string; ids: string[] }> {
  const dir = tempDir();
  const bridge = await bridgeOn(dir);
  // Sent at once: the bridge runs them as its --max-concurrent allows.
  const sent = Array.from({ length: count }, () => bridge.call("message/send", envelopeParams("ok")));
  const ids = (await Promise.all(sent)).map((task) => task.id as string);
  await bridge.close();
  return { dir, ids };
}

describe("serve --state-dir: one runtime per state dir", () => {
  it("a second serve on the same DIR exits 2 naming the holder's pid and touches nothing; the first's task completes", async () => {
    const dir = tempDir();
    const first = await bridgeOn(dir);
    const task = await first.call(
      "message/send",
      envelopeParams("ask", { envelope: { input_mode: "text-line" }, extensions: HITL_URI }),
    );
    assert.equal(task.status.state, "input-required");
    // The holder folds its log into the database once it has been quiet a moment: wait for that, so that any
    // change seen below could only come from the second runtime.
    const wal = join(dir, `${DB_FILE}-wal`);
    // Its log empty and the directory unchanged for longer than the store waits before a checkpoint (1 s): a
    // checkpoint still pending would otherwise touch the log's time after the snapshot.
    let last = "";
    let quietSince = Date.now();
    for (let i = 0; i < 200 && (statSync(wal).size > 0 || Date.now() - quietSince < 1500); i++) {
      const now = JSON.stringify(snapshot(dir));
      if (now !== last) [last, quietSince] = [now, Date.now()];
      await sleep(50);
    }
    assert.equal(statSync(wal).size, 0, "the holder has checkpointed");
    const before = snapshot(dir);
    assert.ok(before[DB_FILE], "the database exists");

    const second = await serveOn(dir);
    assert.equal(second.code, 2, second.stderr);
    assert.equal(second.stdout, "");
    assert.match(second.stderr, new RegExp(`in use by another adapter-command runtime \\(pid ${first.pid}\\b`));
    assert.deepEqual(snapshot(dir), before, "no file of the state dir was written, created or removed");

    const promptId = task.status.message.metadata[HITL_URI].prompt_id;
    const answered = await first.call("message/send", answerParams(task, promptId, { text: "y" }));
    const done = await first.waitTask(answered.id, (t) => t.status.state === "completed");
    assert.match(artifactText(done, "stdout"), /answer: y/);
    await first.close();
    assert.equal(first.exitStatus?.code, 0);
    // Once the first has gone, the state dir is free again.
    const third = await bridgeOn(dir);
    assert.equal((await third.call("tasks/get", { id: task.id })).status.state, "completed");
    await third.close();
  });
});

// Each test has a state dir of its own: they run at once.
describe("serve --state-dir: databases it refuses (exit 2, a clear message, nothing on stdout)", {
  concurrency: AT_ONCE,
}, () => {
  const cases: Array<[string, (dir: string) => void | Promise<void>, RegExp]> = [
    [
      "not SQLite at all",
      (dir) => writeFileSync(join(dir, DB_FILE), "garbage ".repeat(1000)),
      /state\.db is damaged \(the file is not an SQLite database/,
    ],
    [
      "another program's SQLite file",
      (dir) => {
        const db = new Sqlite(join(dir, DB_FILE));
        db.exec("CREATE TABLE notes (text TEXT)");
        db.close();
      },
      /SQLite database of another program/,
    ],
    [
      "a newer version's database",
      async (dir) => {
        const { dir: made } = await stateWithTasks(1);
        writeFileSync(join(dir, DB_FILE), readFileSync(join(made, DB_FILE)));
        editDb(dir, (db) => db.pragma("user_version = 7"));
      },
      /written by a newer adapter-command \(schema version 7/,
    ],
  ];
  for (const [name, make, message] of cases) {
    it(name, async () => {
      const dir = tempDir();
      await make(dir);
      const before = snapshot(dir);
      const result = await serveOn(dir);
      assert.equal(result.code, 2, result.stderr);
      assert.equal(result.stdout, "");
      assert.match(result.stderr, message);
      assert.deepEqual(snapshot(dir), before, "the file is left as it was");
    });
  }

  it("a database cut short", async () => {
    const { dir } = await stateWithTasks(30);
    const path = join(dir, DB_FILE);
    writeFileSync(path, readFileSync(path).subarray(0, Math.floor(statSync(path).size / 2)));
    const result = await serveOn(dir);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /state\.db is damaged/);
  });
});

describe("serve --state-dir: rows of the wrong shape", () => {
  it("are skipped with a warning naming them (a row with pid 1 at start, garbage when read, absurd sizes): no crash, no other task lost", async () => {
    const { dir, ids } = await stateWithTasks(4);
    const [garbled, pidOne, huge, plain] = ids as [string, string, string, string];
    editDb(dir, (db) => {
      db.prepare("UPDATE tasks SET detail = '{\"half\":' WHERE id = ?").run(garbled);
      // As if it were running with pid 1: believed, a restart would signal kill(-1).
      db.prepare("UPDATE tasks SET state = 'working', ended_seq = NULL, pid = 1, pid_start = '1' WHERE id = ?").run(
        pidOne,
      );
      // A size that, believed, would push every other task out of the 256 MiB budget.
      db.prepare("UPDATE tasks SET bytes = 1e15 WHERE id = ?").run(huge);
    });
    const bridge = await bridgeOn(dir);
    assert.match(bridge.stderr, new RegExp(`task ${pidOne} in .* wrong shape \\(pid: expected a pid above 1`));
    // An ended row whose columns are right is not decoded at start: its garbled detail is found when first read.
    assert.doesNotMatch(bridge.stderr, new RegExp(`task ${garbled} in `));
    for (const id of [garbled, pidOne]) assert.equal((await bridge.callError("tasks/get", { id })).code, -32001);
    assert.match(bridge.stderr, new RegExp(`task ${garbled} in .* wrong shape \\(detail: not JSON`));
    for (const id of [huge, plain]) {
      const got: Wire = await bridge.call("tasks/get", { id });
      assert.equal(got.status.state, "completed");
      assert.equal(artifactText(got, "stdout"), "ok\n");
    }
    const listed = (await bridge.call("tasks/list", {})).tasks.map((task: Wire) => task.id).sort();
    assert.deepEqual(listed, [huge, plain].sort());
    const fresh = await bridge.call("message/send", envelopeParams("ok"));
    assert.equal(fresh.status.state, "completed");
    await bridge.close();
    assert.equal(bridge.exitStatus?.code, 0, bridge.stderr);
  });
});

describe("serve --state-dir: a disk that is read-only or full", () => {
  it("a read-only file system at start: exit 2, saying so", async (t) => {
    const mount = mountTmpfs("4m");
    if (!mount) return t.skip("needs to mount a tmpfs (root); chmod cases are in test/stress/faults.test.ts");
    mounts.push(mount);
    const dir = join(mount.dir, "state");
    const bridge = await bridgeOn(dir);
    await bridge.call("message/send", envelopeParams("ok"));
    await bridge.close();
    mount.readOnly(true);
    const result = await serveOn(dir);
    mount.readOnly(false);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, new RegExp(`cannot use --state-dir ${dir}: it is read-only`));
  });

  it("a disk that fills up mid-run: told once, tasks go on in memory and are all served; exit 0", async (t) => {
    const mount = mountTmpfs("1m");
    if (!mount) return t.skip("needs to mount a tmpfs (root); a full database is simulated in test/unit");
    mounts.push(mount);
    const dir = join(mount.dir, "state");
    const bridge = await bridgeOn(dir);
    const first = await bridge.call("message/send", envelopeParams("ok"));
    // Fill what is left of the file system.
    try {
      for (let i = 0; ; i++) writeFileSync(join(mount.dir, `filler-${i}`), Buffer.alloc(64 * 1024));
    } catch (error) {
      assert.equal((error as NodeJS.ErrnoException).code, "ENOSPC");
    }
    const second = await bridge.call("message/send", envelopeParams("payload"));
    const third = await bridge.call("message/send", envelopeParams("exit3"));
    assert.equal(second.status.state, "completed", JSON.stringify(second.status));
    assert.equal(third.status.state, "failed");
    for (const task of [first, second, third]) {
      const got = await bridge.call("tasks/get", { id: task.id });
      assert.equal(got.status.state, task.status.state);
      assert.equal(got.metadata[ADAPTER_URI].exit_code, task.metadata[ADAPTER_URI].exit_code);
    }
    const stdout = (await bridge.call("tasks/get", { id: second.id })).artifacts.find(
      (artifact: Wire) => artifact.artifactId === "stdout",
    );
    assert.equal(stdout.metadata.total_bytes, 64 * 1024, "its output is whole, in memory");
    assert.equal((await bridge.call("tasks/list", {})).tasks.length, 3);
    const complaints = bridge.stderr.split("\n").filter((line) => line.includes("cannot write"));
    assert.equal(complaints.length, 1, bridge.stderr);
    assert.match(
      complaints[0] as string,
      /cannot write task output to .*state\.db \(the disk is full.*every task's state and end are still recorded/,
    );
    await bridge.close();
    assert.equal(bridge.exitStatus?.code, 0, bridge.stderr);
  });

  it("a task that completes after the disk filled under its output is still completed after a clean restart (issue item 3)", async (t) => {
    const mount = mountTmpfs("3m");
    if (!mount) return t.skip("needs to mount a tmpfs (root, as in CI)");
    mounts.push(mount);
    const dir = join(mount.dir, "state");
    const total = 6 * 1024 * 1024;
    const first = startBridge({
      args: ["--state-dir", dir, "--settle-ms", "100"],
      env: { ...process.env, FIXTURE_BYTES: String(total) },
    });
    bridges.push(first);
    await first.ready();
    const task = await first.call(
      "message/send",
      envelopeParams("flood", { envelope: { timeout_seconds: 120 } }),
      60_000,
    );
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    assert.match(first.stderr, /cannot write task output to .*the disk is full/);
    const lost = new RegExp(`task ${task.id} ended completed; (\\d+) bytes of its stdout could not be written`).exec(
      first.stderr,
    );
    assert.ok(lost, `the loss is said on stderr: ${first.stderr}`);
    await first.close();
    assert.equal(first.exitStatus?.code, 0, first.stderr);

    const second = await bridgeOn(dir);
    const got = await second.call("tasks/get", { id: task.id });
    assert.equal(got.status.state, "completed", JSON.stringify(got.status));
    assert.equal(got.metadata[ADAPTER_URI].exit_code, 0);
    const stdout = (got.artifacts as Wire[]).find((artifact) => artifact.artifactId === "stdout");
    assert.equal(stdout.metadata.total_bytes, total, "the count of what the command wrote survives");
    assert.ok(stdout.metadata.dropped_bytes >= Number(lost[1]), "what could not be written is counted as dropped");
    assert.equal(
      Buffer.byteLength(artifactText(got, "stdout")) + stdout.metadata.dropped_bytes,
      total,
      "what is kept and what is counted as dropped add up",
    );
    await second.close();
    assert.equal(second.exitStatus?.code, 0, second.stderr);
  });
});
