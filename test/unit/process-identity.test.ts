// Leftovers of a crashed runtime (CONTRACT 5.5): found by identity from a snapshot of the process table, killed
// only when they are ours, whether or not the group leader still lives; never pid 0 or 1, never our own group.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  killLeftovers,
  leftoversOf,
  type ProcessEntry,
  processStartTime,
  readProcessTable,
} from "../../src/core/process-identity.js";
import { sleep } from "../helpers/cli.js";
import { pidRunning } from "../helpers/processes.js";

const HAS_PROC = readProcessTable().length > 0;
const self = { pid: 100, pgid: 100 };
const task = { id: "task-1", instanceId: "inst-1", pid: 500, pidStart: "1000" };
const marker = ["PATH=/bin", "AIWG_A2A_TASK_ID=task-1", "AIWG_A2A_INSTANCE_ID=inst-1"];
const env =
  (byPid: Record<number, string[]>) =>
  (pid: number): string[] | undefined =>
    byPid[pid];

describe("leftoversOf", () => {
  it("the leader lives with the recorded start time: its whole group", () => {
    const table = [
      { pid: 500, pgid: 500, startTime: "1000" },
      { pid: 501, pgid: 500, startTime: "1001" },
    ];
    assert.deepEqual(leftoversOf(task, table, self, env({})), { group: 500, pids: [] });
  });

  it("the pid names another process now (another start time): nothing, the group can't be ours", () => {
    const table = [
      { pid: 500, pgid: 500, startTime: "7000" },
      { pid: 501, pgid: 500, startTime: "7001" },
    ];
    assert.deepEqual(leftoversOf(task, table, { pid: 1, pgid: 1 }, env({ 501: marker })), { pids: [] });
  });

  it("the leader is gone: members of its group that carry the task's marker and started after it", () => {
    const table: ProcessEntry[] = [
      { pid: 501, pgid: 500, startTime: "1001" },
      { pid: 502, pgid: 500, startTime: "1002" },
      { pid: 503, pgid: 500, startTime: "1003" },
      { pid: 504, pgid: 500, startTime: "999" },
      { pid: 505, pgid: 777, startTime: "1005" },
    ];
    const found = leftoversOf(
      task,
      table,
      self,
      env({
        501: marker,
        502: ["AIWG_A2A_TASK_ID=task-1", "AIWG_A2A_INSTANCE_ID=other"],
        504: marker,
        505: marker,
      }),
    );
    // 502: another runtime's; 503: environment unreadable; 504: older than the leader; 505: another group.
    assert.deepEqual(
      found.pids.map((entry) => entry.pid),
      [501],
    );
    assert.equal(found.group, undefined);
  });

  it("refuses pid 0 and 1, negative, fractional and huge pids, a missing start time, our own pid and group", () => {
    const table = [
      { pid: 1, pgid: 1, startTime: "1" },
      { pid: 100, pgid: 100, startTime: "5" },
    ];
    const all = () => marker;
    for (const [pid, pidStart] of [
      [0, "1"],
      [1, "1"],
      [-1, "1"],
      [2.5, "1"],
      [2 ** 60, "1"],
      [100, "5"],
      [500, undefined],
      [500, "abc"],
    ] as const)
      assert.deepEqual(leftoversOf({ ...task, pid, pidStart }, table, self, all), { pids: [] }, `pid ${pid}`);
  });

  it("property: whatever the table and the row say, only processes of the recorded group, never pid <= 1 or ours", () => {
    const entry = fc.record({
      pid: fc.integer({ min: 0, max: 12 }),
      pgid: fc.integer({ min: 0, max: 12 }),
      startTime: fc.integer({ min: 0, max: 20 }).map(String),
    });
    fc.assert(
      fc.property(
        fc.array(entry, { maxLength: 30 }),
        fc.integer({ min: -3, max: 12 }),
        fc.oneof(fc.integer({ min: 0, max: 20 }).map(String), fc.constant("x")),
        fc.record({ pid: fc.integer({ min: 1, max: 12 }), pgid: fc.integer({ min: 1, max: 12 }) }),
        fc.boolean(),
        (table, pid, pidStart, me, marked) => {
          const found = leftoversOf({ ...task, pid, pidStart }, table, me, () => (marked ? marker : []));
          if (found.group !== undefined) {
            assert.ok(found.group > 1 && found.group === pid && found.group !== me.pid && found.group !== me.pgid);
            const leader = table.find((e) => e.pid === pid);
            assert.equal(leader?.startTime, pidStart, "a group only through its living leader");
          }
          for (const hit of found.pids) {
            assert.ok(hit.pid > 1 && hit.pid !== me.pid && hit.pgid !== me.pgid, JSON.stringify(hit));
            assert.ok(hit.pgid === pid || hit.pid === pid, "in the recorded group, or its leader");
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});

/** Starts `node -e script` in a process group of its own, with `env`; resolves once it has printed a line. */
async function startGroup(
  script: string,
  env: NodeJS.ProcessEnv,
): Promise<{ pid: number; start: string; output: string }> {
  const child = spawn(process.execPath, ["-e", script], { detached: true, env, stdio: ["ignore", "pipe", "inherit"] });
  let output = "";
  child.stdout.setEncoding("utf8");
  await new Promise<void>((resolve) =>
    child.stdout.on("data", (text: string) => {
      output += text;
      if (output.includes("\n")) resolve();
    }),
  );
  const start = processStartTime(child.pid as number) as string;
  child.stdout.destroy();
  child.unref();
  return { pid: child.pid as number, start, output };
}

const LEAVE_CHILD = `
  const { spawn } = require("node:child_process");
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  process.stdout.write("child " + child.pid + "\\n");
  setTimeout(() => process.exit(0), 100);
`;

describe("killLeftovers on real processes", { skip: !HAS_PROC && "needs /proc" }, () => {
  it("the leader alive: kills its group; a wrong start time: spares it", async () => {
    const { pid, start } = await startGroup("process.stdout.write('up\\n'); setInterval(() => {}, 1000)", process.env);
    try {
      assert.deepEqual(killLeftovers({ ...task, pid, pidStart: String(Number(start) - 1) }), []);
      await sleep(100);
      assert.ok(pidRunning(pid), "spared");
      assert.deepEqual(killLeftovers({ ...task, pid, pidStart: start }), [-pid]);
      for (let i = 0; i < 50 && pidRunning(pid); i++) await sleep(20);
      assert.equal(pidRunning(pid), false, "killed");
    } finally {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {}
    }
  });

  it("the leader gone: kills a child that carries the task's marker, spares one that does not", async () => {
    const marked = await startGroup(LEAVE_CHILD, {
      ...process.env,
      AIWG_A2A_TASK_ID: task.id,
      AIWG_A2A_INSTANCE_ID: task.instanceId,
    });
    const unmarked = await startGroup(LEAVE_CHILD, { ...process.env, AIWG_A2A_TASK_ID: "", AIWG_A2A_INSTANCE_ID: "" });
    const [markedStart, unmarkedStart] = [marked.start, unmarked.start];
    const markedChild = Number(/child (\d+)/.exec(marked.output)?.[1]);
    const unmarkedChild = Number(/child (\d+)/.exec(unmarked.output)?.[1]);
    try {
      // Gone, not just exited: a zombie leader with its start time would still vouch for its group.
      const gone = (pid: number) => processStartTime(pid) === undefined;
      for (let i = 0; i < 100 && !(gone(marked.pid) && gone(unmarked.pid)); i++) await sleep(20);
      assert.ok(gone(marked.pid) && gone(unmarked.pid), "both leaders have exited and been reaped");
      assert.ok(pidRunning(markedChild) && pidRunning(unmarkedChild), "their children live on");
      assert.deepEqual(killLeftovers({ ...task, pid: unmarked.pid, pidStart: unmarkedStart }), []);
      assert.deepEqual(killLeftovers({ ...task, pid: marked.pid, pidStart: markedStart }), [markedChild]);
      for (let i = 0; i < 50 && pidRunning(markedChild); i++) await sleep(20);
      assert.equal(pidRunning(markedChild), false, "the marked child was killed");
      assert.ok(pidRunning(unmarkedChild), "the unmarked one was spared");
    } finally {
      for (const pid of [markedChild, unmarkedChild]) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {}
      }
    }
  });
});
