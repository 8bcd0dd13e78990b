// Each guard with real processes, through the dispatcher (CONTRACT 3.2; docs/security.md "Containment"): the
// stray-* fixtures start children that leave the runner's process group (setsid, detached, a double fork, deaf to
// SIGTERM, holding stdout, with a cleared environment). The marker guard is forced here so that it is proven on a
// machine that would choose cgroups; the group guard shows what it cannot catch. Linux only (they read /proc).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { sharedContainment } from "../../src/core/containment/containment.js";
import { groupGuard } from "../../src/core/containment/group-guard.js";
import type { Guard } from "../../src/core/containment/guard.js";
import { hasProc, REAL_HOST } from "../../src/core/containment/host.js";
import { markerGuard } from "../../src/core/containment/marker-guard.js";
import { Dispatcher, type TaskView } from "../../src/core/task/dispatcher.js";
import { type RunningCommand, spawnCommand } from "../../src/core/task/process.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { killPids, pidRunning, strayPids, survivorsAfter } from "../helpers/processes.js";

const LINUX = process.platform === "linux" && hasProc("/proc");
/** Every way to leave the group that the marker guard catches (a cleared environment is the one it cannot). */
const STRAYS = ["setsid", "detached", "double-fork", "ignore-term", "hold-stdout"] as const;
type Stray = (typeof STRAYS)[number] | "clear-env";
type End = "exit" | "timeout" | "cancel";

const leftBehind: number[] = [];
after(() => killPids(leftBehind));

/** Every command a dispatcher here spawns, by task id, so that a test can bring its deadline (see runStray). */
const commands = new Map<string, RunningCommand>();

function dispatcherWith(guard: Guard): Dispatcher {
  return new Dispatcher({
    store: new MemoryStore(),
    workspace: FIXTURES,
    maxConcurrent: 16,
    killGraceMs: 500,
    containment: { guard, host: REAL_HOST, watchdog: undefined },
    spawn: (spec, handlers, containment) => {
      const command = spawnCommand(spec, handlers, containment);
      commands.set(spec.env.AIWG_A2A_TASK_ID as string, command);
      return command;
    },
  });
}

/** Runs a stray-* fixture to its end; the runner's pid and its children's, and the task at its end. */
async function runStray(dispatcher: Dispatcher, stray: Stray, end: End): Promise<{ task: TaskView; pids: number[] }> {
  const analysis = analyzeInput(envelopeParams(`stray-${stray}`, { text: end === "exit" ? "exit" : "run on" }));
  let id = "";
  let text = "";
  let onReady!: () => void;
  const ready = new Promise<void>((resolve) => (onReady = resolve));
  const off = dispatcher.subscribe((event) => {
    if (event.type !== "output" || event.taskId !== id || event.stream !== "stdout") return;
    text += event.text;
    if (text.includes("ready\n")) onReady();
  });
  const submitted = dispatcher.submit({ analysis, hitlActivated: false });
  id = submitted.id;
  await Promise.race([ready, dispatcher.settled(id)]);
  // The deadline comes once the children have left the group: the runner's own timer does just this stop at the
  // deadline (src/core/task/process.ts). A real deadline of a few seconds could pass, on a loaded machine, before a
  // double fork had started its grandchild, and the test would then prove nothing about it; the timer itself is
  // proven through the binary (test/e2e/containment.test.ts).
  if (end === "timeout") commands.get(id)?.stop("timeout");
  if (end === "cancel") dispatcher.cancel(id);
  await dispatcher.settled(id);
  off();
  const task = dispatcher.get(id);
  const pids = strayPids(text);
  leftBehind.push(...pids);
  assert.ok(text.includes("ready\n"), `stray-${stray} got its children going before the end: ${JSON.stringify(text)}`);
  return { task, pids };
}

const expectedState: Record<End, string> = { exit: "completed", timeout: "failed", cancel: "canceled" };

describe("the marker guard, with real processes", { skip: !LINUX && "needs Linux /proc", timeout: 60_000 }, () => {
  const dispatcher = dispatcherWith(markerGuard(REAL_HOST));
  after(() => dispatcher.shutdown());

  for (const end of ["exit", "timeout", "cancel"] as const) {
    it(`${end}: no child of any stray fixture is left 5 s after its task ended`, async () => {
      const results = await Promise.all(STRAYS.map((stray) => runStray(dispatcher, stray, end)));
      for (const [i, { task, pids }] of results.entries()) {
        assert.equal(task.state, expectedState[end], `stray-${STRAYS[i]}: ${task.statusText}`);
        assert.deepEqual(await survivorsAfter(pids, 5000), [], `stray-${STRAYS[i]}: still running`);
      }
    });
  }

  it("hold-stdout: the task completes (exit 0) without waiting out the stream, its holder killed first", async () => {
    const { task, pids } = await runStray(dispatcher, "hold-stdout", "exit");
    assert.deepEqual([task.state, task.exitCode], ["completed", 0]);
    assert.deepEqual(await survivorsAfter(pids, 5000), []);
  });

  it("what it cannot catch: a child that clears its environment and leaves the group lives on", async () => {
    const { task, pids } = await runStray(dispatcher, "clear-env", "exit");
    assert.equal(task.state, "completed");
    const child = pids[1] as number; // after the runner
    assert.ok(pidRunning(child), "the child without marks is not found (docs/security.md)");
    killPids([child]);
  });
});

describe("the group guard, with real processes", { skip: !LINUX && "needs Linux /proc", timeout: 60_000 }, () => {
  const dispatcher = dispatcherWith(groupGuard(REAL_HOST));
  after(() => dispatcher.shutdown());

  it("what it cannot catch: a child that left the group outlives its task; one that stayed is killed", async () => {
    const { pids } = await runStray(dispatcher, "ignore-term", "exit");
    const [, left, stayed] = pids as [number, number, number];
    assert.deepEqual(await survivorsAfter([stayed], 5000), [], "the child in the group is gone");
    assert.ok(pidRunning(left), "the child in a session of its own lives on (docs/security.md)");
    killPids([left]);
  });
});

describe("the guard this machine gets, with real processes", {
  skip: !LINUX && "needs Linux /proc",
  timeout: 60_000,
}, () => {
  const guard = sharedContainment().guard;
  const dispatcher = dispatcherWith(guard);
  after(() => dispatcher.shutdown());

  it("cgroup: even a child that cleared its environment and left the group is killed", {
    skip: guard.kind !== "cgroup" && `this machine gets the ${guard.kind} guard`,
  }, async () => {
    const { task, pids } = await runStray(dispatcher, "clear-env", "exit");
    assert.equal(task.state, "completed");
    assert.deepEqual(await survivorsAfter(pids, 5000), []);
  });
});
