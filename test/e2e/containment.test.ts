// No process outlives its task, through the built binary under the guard this machine gets (CONTRACT 3.2, 5.5;
// docs/security.md "Containment"): the stray-* fixtures start children that leave the process group (setsid,
// detached, a double fork, deaf to SIGTERM, holding stdout; a cleared environment where a cgroup catches it). After a
// timeout, a cancel, a normal exit, Ctrl-C on `run`, stdin EOF or SIGTERM on `serve`, none runs 5 s after the end;
// after a SIGKILL of the tool itself, none runs past its deadline plus the grace period (with 3 s to spare).
import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { killLeftovers } from "../../src/core/task/process-identity.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { AT_ONCE, FIXTURES, sleep, started } from "../helpers/cli.js";
import { envelopeParams, writeEnvelope } from "../helpers/envelopes.js";
import {
  killPids,
  killToolAndWatchdog,
  procStat,
  strayPids,
  survivorsAfter,
  watchdogOf,
} from "../helpers/processes.js";
import type { TaskEvent, Wire } from "../helpers/wire.js";

const LINUX = process.platform === "linux";
const GRACE_S = 2;
const STRAYS = ["setsid", "detached", "double-fork", "ignore-term", "hold-stdout"] as const;
type Stray = (typeof STRAYS)[number] | "clear-env";

/** The guard a tool said it uses, from its stderr (`containment: <kind>`). */
function guardOf(stderr: string): string | undefined {
  return /containment: (cgroup|marker|group)\n/.exec(stderr)?.[1];
}

/** The fixtures every guard of this machine must contain: a cleared environment only a cgroup can catch. */
const strayFixturesFor = (guard: string | undefined): Stray[] => [
  ...STRAYS,
  ...(guard === "cgroup" ? (["clear-env"] as const) : []),
];

const leftBehind: number[] = [];
after(() => killPids(leftBehind));

const bridges: RpcBridge[] = [];
afterEach(async () => {
  for (const bridge of bridges.splice(0)) await bridge.close();
});

async function bridgeOf(...args: string[]): Promise<RpcBridge> {
  const bridge = startBridge({ args: ["--max-concurrent", "16", ...args] });
  bridges.push(bridge);
  await bridge.ready();
  return bridge;
}

interface Started {
  task: Wire;
  /** The runner's pid and its children's, as far as it printed them. */
  pids: number[];
  /** False when the task ended before the runner said `ready`. */
  ready: boolean;
  /** Waits for the final status event. */
  final: () => Promise<TaskEvent>;
}

const isFinal = (e: TaskEvent) => e.kind === "status-update" && e.final === true;

/** Starts a stray-* fixture through message/stream and waits for its `ready` (or its end). */
async function startStray(
  bridge: RpcBridge,
  stray: Stray,
  options: { exit?: boolean; timeout?: number } = {},
): Promise<Started> {
  const params = envelopeParams(`stray-${stray}`, {
    text: options.exit ? "exit" : "run on",
    envelope: { timeout_seconds: options.timeout ?? 60 },
  });
  const task = await bridge.call("message/stream", params);
  let text = "";
  let final: TaskEvent | undefined;
  while (!text.includes("ready\n") && !final) {
    const event = await bridge.nextEvent(
      task.id,
      (e) => isFinal(e) || (e.kind === "artifact-update" && e.artifact.artifactId === "stdout"),
      20_000,
    );
    if (isFinal(event)) final = event;
    else text += event.artifact.parts.map((part: Wire) => part.text).join("");
  }
  const pids = strayPids(text);
  leftBehind.push(...pids);
  return {
    task,
    pids,
    ready: text.includes("ready\n"),
    final: () => (final ? Promise.resolve(final) : bridge.nextEvent(task.id, isFinal, 30_000)),
  };
}

describe("containment through serve --stdio", { skip: !LINUX && "reads /proc", timeout: 180_000 }, () => {
  it("says at start which guard is on", async () => {
    const bridge = await bridgeOf();
    assert.ok(guardOf(bridge.stderr), bridge.stderr);
  });

  // Every runner must have started its children before its deadline, or the test would prove nothing about them:
  // 6 s is ample for the runners to start here together, and one that did not is a failure that says so.
  for (const end of ["exit", "timeout", "cancel"] as const) {
    it(`${end}: no process of any stray fixture runs 5 s after its task ended`, async () => {
      const expected = { exit: "completed", timeout: "failed", cancel: "canceled" }[end];
      const timeout = end === "timeout" ? 6 : 60;
      const bridge = await bridgeOf();
      const strays = strayFixturesFor(guardOf(bridge.stderr));
      await Promise.all(
        strays.map(async (stray) => {
          const { task, pids, ready, final } = await startStray(bridge, stray, { exit: end === "exit", timeout });
          assert.ok(ready, `stray-${stray} had not started its children by its ${timeout} s deadline`);
          if (end === "cancel") await bridge.call("tasks/cancel", { id: task.id });
          const status = (await final()).status;
          assert.equal(status.state, expected, `stray-${stray}: ${JSON.stringify(status)}`);
          assert.deepEqual(await survivorsAfter(pids, 5000), [], `stray-${stray}: still running`);
        }),
      );
    });
  }

  it("hold-stdout: completed as the runner exits 0, not while its child holds stdout, and the child is gone", async () => {
    const bridge = await bridgeOf();
    const { pids, ready, final } = await startStray(bridge, "hold-stdout", { exit: true });
    assert.ok(ready);
    assert.equal((await final()).status.state, "completed");
    assert.deepEqual(await survivorsAfter(pids, 5000), []);
  });

  for (const how of ["stdin EOF, then SIGTERM", "SIGTERM"] as const) {
    it(`${how}: exit 0 within 5 s, and no process of any stray fixture runs 5 s after`, async () => {
      const bridge = await bridgeOf();
      const strays = strayFixturesFor(guardOf(bridge.stderr));
      const running = await Promise.all(strays.map((stray) => startStray(bridge, stray)));
      assert.ok(running.every((r) => r.ready));
      const t0 = Date.now();
      // The end of input lets what runs go on (CONTRACT 5.5): the signal stops it.
      if (how !== "SIGTERM") bridge.child.stdin.end();
      bridge.child.kill("SIGTERM");
      assert.deepEqual(await bridge.waitExit(8000), { code: 0, signal: null }, bridge.stderr);
      assert.ok(Date.now() - t0 < 5000, `exited within 5 s (took ${Date.now() - t0} ms)`);
      assert.deepEqual(
        await survivorsAfter(
          running.flatMap((r) => r.pids),
          5000,
        ),
        [],
      );
    });
  }

  // The runners must be ready before their deadline (5 s, ample here; one that was not fails the test), so that
  // the watchdog, not the bridge, is what ends them.
  it("SIGKILL of the bridge while its runners sleep (timeout_seconds 5): gone within 5 s + grace + 3 s", async () => {
    const bridge = await bridgeOf();
    const t0 = Date.now(); // before the dispatch: a safe start for the deadline
    const strays = ["ignore-term", "setsid", "double-fork"] as const;
    const running = await Promise.all(strays.map((stray) => startStray(bridge, stray, { timeout: 5 })));
    assert.ok(
      running.every((r) => r.ready),
      "the runners had not started their children by their 5 s deadline",
    );
    bridge.child.kill("SIGKILL");
    const budget = t0 + (5 + GRACE_S + 3) * 1000 - Date.now();
    assert.deepEqual(
      await survivorsAfter(
        running.flatMap((r) => r.pids),
        budget,
      ),
      [],
    );
  });

  it("a watchdog killed while tasks run is started again, and still ends them when the bridge is SIGKILLed", async () => {
    const bridge = await bridgeOf();
    const { task, pids, ready } = await startStray(bridge, "detached");
    assert.ok(ready);
    const first = watchdogOf(bridge.pid);
    assert.ok(first, "a watchdog runs beside the bridge");
    process.kill(first, "SIGKILL");
    let second: number | undefined;
    for (let i = 0; i < 200 && (second === undefined || second === first); i++) {
      await sleep(25);
      second = watchdogOf(bridge.pid);
    }
    assert.ok(second && second !== first, "another watchdog was started");
    // The bridge writes what it watches to a new watchdog in the turn that starts it (src/core/containment/
    // watchdog.ts), so an answer to a later request means it was written; the pipe keeps it after the bridge dies.
    await bridge.call("tasks/get", { id: task.id });
    bridge.child.kill("SIGKILL");
    assert.deepEqual(await survivorsAfter(pids, (GRACE_S + 3) * 1000), []);
  });
  it("killLeftovers after the bridge and its watchdog are lost together: runner and strays killed by identity", async () => {
    const bridge = await bridgeOf("--instance", "6c0e2b4a-1f3d-4e5a-8b7c-9d0e1f2a3b4c");
    const running = await Promise.all((["setsid", "double-fork"] as const).map((stray) => startStray(bridge, stray)));
    assert.ok(running.every((r) => r.ready));
    killToolAndWatchdog(bridge.pid);
    await bridge.waitExit(5000);
    const pids = running.flatMap((r) => r.pids);
    assert.deepEqual(
      await survivorsAfter(pids, 500),
      pids,
      "nothing ended them: both the bridge and the watchdog are gone",
    );
    for (const {
      task,
      pids: [runner],
    } of running) {
      const record = {
        id: task.id,
        instanceId: "6c0e2b4a-1f3d-4e5a-8b7c-9d0e1f2a3b4c",
        pid: runner,
        pidStart: procStat(runner as number)?.[19],
      };
      assert.equal(killLeftovers(record), true);
    }
    assert.deepEqual(await survivorsAfter(pids, 5000), []);
  });
});

// Each test runs its own tool and runners: they run at once.
describe("containment through run", { skip: !LINUX && "reads /proc", timeout: 180_000, concurrency: AT_ONCE }, () => {
  const run = (stray: string, timeout = 60, text = "run on") => [
    "run",
    "--no-tui",
    "--verbose",
    "--workspace",
    FIXTURES,
    writeEnvelope({ working_dir: stray, timeout_seconds: timeout }, { text }),
  ];

  it("Ctrl-C (SIGINT): exit 130, and no process of any stray fixture runs 5 s later", async () => {
    const probe = started(run("stray-detached", 60, "exit"));
    await probe.closed;
    const strays = strayFixturesFor(guardOf(probe.stderr()));
    await Promise.all(
      strays.map(async (stray) => {
        const live = started(run(`stray-${stray}`), { guardMs: 30_000 });
        try {
          await live.waitFor(/^ready$/m, 20_000);
          const pids = strayPids(live.stdout());
          leftBehind.push(...pids);
          live.child.kill("SIGINT");
          assert.equal(await live.closed, 130, `stray-${stray}: ${live.stderr()}`);
          assert.deepEqual(await survivorsAfter(pids, 5000), [], `stray-${stray}: still running`);
        } finally {
          live.stop();
        }
      }),
    );
  });

  it("normal exit with a child holding stdout: exit 0, the child gone", async () => {
    const live = started(run("stray-hold-stdout", 60, "exit"));
    try {
      await live.waitFor(/^ready$/m, 20_000);
      const pids = strayPids(live.stdout());
      leftBehind.push(...pids);
      assert.equal(await live.closed, 0, live.stderr());
      assert.deepEqual(await survivorsAfter(pids, 5000), []);
    } finally {
      live.stop();
    }
  });

  // The runner must be ready before its deadline (4 s, ample here): one that was not fails the test (waitFor).
  it("SIGKILL while the runner sleeps under timeout_seconds 4: runner and children gone within 4 s + grace + 3 s", async () => {
    const t0 = Date.now();
    const live = started(run("stray-ignore-term", 4));
    try {
      await live.waitFor(/^ready$/m, 20_000);
      const pids = strayPids(live.stdout());
      leftBehind.push(...pids);
      live.child.kill("SIGKILL");
      assert.deepEqual(await survivorsAfter(pids, t0 + (4 + GRACE_S + 3) * 1000 - Date.now()), []);
    } finally {
      live.stop();
    }
  });

  it("SIGKILL during the grace (a runner deaf to SIGTERM past its 4 s deadline): gone by deadline + grace + 3 s", async () => {
    const live = started(run("pid-term-loud", 4));
    try {
      const pid = Number((await live.waitFor(/^pid (\d+)$/m, 20_000))[1]);
      leftBehind.push(pid);
      // The runner says so when the deadline's SIGTERM reaches it: the deadline is behind, the grace has begun.
      await live.waitFor(/^got SIGTERM, ignoring$/m, 20_000);
      const sigterm = Date.now();
      live.child.kill("SIGKILL");
      assert.deepEqual(await survivorsAfter([pid], sigterm + (GRACE_S + 3) * 1000 - Date.now()), []);
    } finally {
      live.stop();
    }
  });
});
