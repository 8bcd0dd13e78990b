// `serve --stdio` lifecycle: the concurrency limit, shutdown on EOF and signals, the instance id, restarts on a
// state dir, and backpressure when the consumer stops reading (CONTRACT section 5.5).
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it, type TestContext } from "node:test";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { AT_ONCE, runCli, sleep } from "../helpers/cli.js";
import { answerParams, echoParams, envelopeParams } from "../helpers/envelopes.js";
import { startWithPid } from "../helpers/fixture-output.js";
import {
  childOf,
  groupGoneWithin,
  groupRunning,
  killGroup,
  killToolAndWatchdog,
  procStat,
  rssKiB,
  trueWithin,
  written,
} from "../helpers/processes.js";
import { artifactText, type TaskEvent, type Wire } from "../helpers/wire.js";

const tempDirs: string[] = [];
function tempDir(name: string): string {
  const dir = mkdtempSync(join(tmpdir(), `adapter-command-${name}-`));
  tempDirs.push(dir);
  return dir;
}

/** Process groups of runners the tests started, killed at the end should a failing test leave one. */
const groups: number[] = [];
/** Starts a bridge that is closed when the test `t` ends, and waits until it answers. */
async function bridgeOf(t: TestContext, ...args: Parameters<typeof startBridge>): Promise<RpcBridge> {
  const bridge = startBridge(...args);
  t.after(() => bridge.close());
  await bridge.ready();
  return bridge;
}

after(() => {
  for (const pgid of groups) killGroup(pgid);
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

/** Highest number of intervals open at one instant. */
function maxOverlap(intervals: Array<{ start: number; end: number }>): number {
  const points = intervals.flatMap(({ start, end }) => [
    { at: start, delta: 1 },
    { at: end, delta: -1 },
  ]);
  // Ends before starts at the same instant: touching intervals do not overlap.
  points.sort((a, b) => a.at - b.at || a.delta - b.delta);
  let open = 0;
  let max = 0;
  for (const point of points) {
    open += point.delta;
    max = Math.max(max, open);
  }
  return max;
}

// Each group has bridges of its own: the groups run at once. A group whose tests are steps of one story says so.
describe("serve --stdio lifecycle", { concurrency: AT_ONCE }, () => {
  describe("serve --stdio: --max-concurrent", { concurrency: false }, () => {
    it("20 tasks with --max-concurrent 4: never more than 4 working at once, all 20 complete", async (t) => {
      const pidDir = tempDir("pids");
      const bridge = await bridgeOf(t, { args: ["--max-concurrent", "4"], env: { FIXTURE_PID_DIR: pidDir } });
      const tasks = await Promise.all(
        Array.from({ length: 20 }, () => bridge.call("message/stream", envelopeParams("sleep300"))),
      );
      for (const task of tasks) assert.ok(["submitted", "working"].includes(task.status.state), task.status.state);

      // Poll tasks/list while they run.
      let polling = true;
      let maxListed = 0;
      let sawQueued = false;
      const poller = (async () => {
        while (polling) {
          const list = (await bridge.call("tasks/list", {})).tasks as Wire[];
          const mine = list.filter((task) => tasks.some((t) => t.id === task.id));
          maxListed = Math.max(maxListed, mine.filter((task) => task.status.state === "working").length);
          if (mine.some((task) => task.status.state === "submitted")) sawQueued = true;
          await sleep(20);
        }
      })();

      // Rebuild the working set from the status events, in the order the bridge sent them.
      const statusEvents: Array<{ line: number; event: TaskEvent }> = [];
      await Promise.all(
        tasks.map(async (task) => {
          const events = await bridge.eventsUntilFinal(task.id, 30_000);
          for (const event of events) {
            if (event.kind === "status-update") statusEvents.push({ line: bridge.lineOf(event) as number, event });
          }
          assert.equal((events.at(-1) as TaskEvent).status.state, "completed", `task ${task.id}`);
        }),
      );
      polling = false;
      await poller;
      statusEvents.sort((a, b) => a.line - b.line);
      const working = new Set<string>();
      let maxEvents = 0;
      for (const { event } of statusEvents) {
        if (event.status.state === "working") working.add(event.taskId);
        else if (event.final) working.delete(event.taskId);
        maxEvents = Math.max(maxEvents, working.size);
      }
      assert.ok(maxEvents <= 4, `at most 4 working (events): ${maxEvents}`);
      assert.equal(maxEvents, 4, "the limit is used");
      assert.ok(maxListed <= 4, `at most 4 working (tasks/list): ${maxListed}`);
      assert.ok(sawQueued, "tasks past the limit wait in submitted");

      // And the processes themselves: their own start/end times never overlap more than 4 deep.
      const records = readdirSync(pidDir).map(
        (file) => JSON.parse(readFileSync(join(pidDir, file), "utf8")) as { task: string; start: number; end: number },
      );
      assert.equal(records.length, 20, "every runner ran to its end");
      assert.deepEqual(new Set(records.map((r) => r.task)), new Set(tasks.map((t) => t.id)));
      assert.ok(maxOverlap(records) <= 4, `at most 4 runners at once: ${maxOverlap(records)}`);

      for (const task of tasks) {
        const got = await bridge.call("tasks/get", { id: task.id });
        assert.equal(got.status.state, "completed");
        assert.match(artifactText(got, "stdout"), /^pid \d+\n$/);
      }
    });
  });

  describe("serve --stdio: queue", { concurrency: AT_ONCE }, () => {
    it("a task waiting in submitted can be canceled; it never starts", async (t) => {
      const bridge = await bridgeOf(t, { args: ["--max-concurrent", "1"] });
      const { task: running } = await startWithPid(bridge, "pid-hang", groups);
      const queued = await bridge.call("message/send", envelopeParams("ok", { configuration: { blocking: false } }));
      assert.equal(queued.status.state, "submitted");
      const canceled = await bridge.call("tasks/cancel", { id: queued.id });
      assert.equal(canceled.status.state, "canceled");
      assert.equal(canceled.metadata[ADAPTER_URI].started_at, null, "it never started");
      assert.equal((await bridge.call("tasks/get", { id: running.id })).status.state, "working");
      assert.equal((await bridge.call("tasks/cancel", { id: running.id })).status.state, "canceled");
      // The slot is free: a task sent now runs to its end after anything still waiting before it would have started.
      assert.equal((await bridge.call("message/send", envelopeParams("ok"))).status.state, "completed");
      const still = await bridge.call("tasks/get", { id: queued.id });
      assert.equal(still.status.state, "canceled");
      assert.equal(still.metadata[ADAPTER_URI].started_at, null, "it never started");
      assert.equal(artifactText(still, "stdout"), "");
    });

    it("with 1000 tasks waiting, the next is -32000 server busy (data.reason queue_full); a free slot takes it again", async (t) => {
      const bridge = await bridgeOf(t, { args: ["--max-concurrent", "1"] });
      const { task: running } = await startWithPid(bridge, "pid-hang", groups);
      const waiting = Array.from({ length: 1000 }, (_, i) => ({
        jsonrpc: "2.0",
        id: `queued-${i}`,
        method: "message/send",
        params: { ...echoParams(`queued ${i}`), configuration: { blocking: false } },
      }));
      bridge.sendLine(JSON.stringify(waiting));
      const answers = (await bridge.nextRawResponse(60_000)) as Wire[];
      assert.equal(answers.length, 1000);
      assert.deepEqual(
        answers.filter((answer) => answer.result?.status?.state !== "submitted"),
        [],
      );
      const full = await bridge.callError("message/send", echoParams("one too many"));
      assert.equal(full?.code, -32000);
      assert.equal(full?.message, "server busy: too many tasks waiting (1000); try again when some have ended");
      assert.deepEqual(full?.data, { reason: "queue_full" });
      // The running task ends: the queue moves on (on a later turn of the bridge's event loop) and has room again.
      await bridge.call("tasks/cancel", { id: running.id });
      await bridge.waitTask((answers.at(-1) as Wire).result.id, (task) => task.status.state === "completed");
      const after = await bridge.call("message/send", echoParams("room again"), 60_000);
      assert.equal(after.status.state, "completed");
    });
  });

  describe("serve: usage", { concurrency: false }, () => {
    it("exits 2 on a usage error or a state dir it cannot use", async () => {
      // A state dir below a regular file cannot be created. (Not below /proc: Node's recursive mkdir loops there.)
      const file = join(tempDir("file"), "plain-file");
      writeFileSync(file, "");
      for (const args of [
        ["serve"],
        ["serve", "--stdio", "--max-concurrent", "0"],
        ["serve", "--stdio", "--state-dir", join(file, "state")],
      ]) {
        const result = await runCli(args, { timeoutMs: 20_000 });
        assert.equal(result.code, 2, `${args.join(" ")}: code ${result.code}, stderr ${result.stderr}`);
        assert.equal(result.stdout, "", "nothing on stdout");
        assert.ok(result.stderr.length > 0, "says why on stderr");
      }
    });
  });

  describe("serve --stdio: shutdown", { concurrency: AT_ONCE }, () => {
    /** Starts a few never-ending tasks (and one queued behind them); returns them with their groups. */
    async function busyBridge(t: TestContext, hangFixture: string) {
      const bridge = await bridgeOf(t, { args: ["--max-concurrent", "3"] });
      const running = [
        await startWithPid(bridge, "pid-hang", groups),
        await startWithPid(bridge, "pid-hang", groups),
        await startWithPid(bridge, hangFixture, groups),
      ];
      const queued = await bridge.call(
        "message/send",
        envelopeParams("pid-hang", { configuration: { blocking: false } }),
      );
      assert.equal((await bridge.call("tasks/get", { id: queued.id })).status.state, "submitted");
      // A blocking send still waiting for its answer when the shutdown starts (queued behind the others too).
      const pending = bridge.callRaw("message/send", envelopeParams("pid-hang"), 30_000);
      await bridge.waitTask(queued.id, (t) => t.status.state === "submitted"); // a round trip: the send has arrived
      return { bridge, running, queued, pending };
    }

    async function assertCleanExit(
      { bridge, running, queued, pending }: Awaited<ReturnType<typeof busyBridge>>,
      startedAt: number,
    ): Promise<void> {
      const exit = await bridge.waitExit(8000);
      const seconds = (Date.now() - startedAt) / 1000;
      assert.deepEqual(exit, { code: 0, signal: null }, `stderr:\n${bridge.stderr}`);
      assert.ok(seconds < 5, `exited within 5 s (took ${seconds.toFixed(2)} s)`);
      for (const { task, pgid } of running) {
        assert.ok(!groupRunning(pgid), `no process of group ${pgid} is left`);
        // The final event was sent before the exit.
        const final = await bridge.nextEvent(task.id, (e) => e.kind === "status-update" && e.final === true, 100);
        assert.equal(final.status.state, "canceled");
      }
      const answered = await pending.catch((error: Error) =>
        assert.fail(`the pending send was not answered: ${error}`),
      );
      assert.equal(answered.result?.status?.state, "canceled", JSON.stringify(answered));
      assert.notEqual(answered.result.id, queued.id);
      assert.deepEqual(bridge.protocolProblems, []);
    }

    it("stdin EOF lets running children go on; a SIGTERM then: exit 0 within 5 s, final events sent, no child left", async (t) => {
      const busy = await busyBridge(t, "pid-hang");
      busy.bridge.child.stdin.end();
      // The end of input is heard (and logged) before the signal comes.
      await busy.bridge.waitStderr(/end of input/);
      const startedAt = Date.now();
      busy.bridge.child.kill("SIGTERM");
      await assertCleanExit(busy, startedAt);
    });

    it("SIGTERM with running children (one ignoring SIGTERM): exit 0 within 5 s, no child left", async (t) => {
      const busy = await busyBridge(t, "pid-ignore-term");
      const startedAt = Date.now();
      busy.bridge.child.kill("SIGTERM");
      await assertCleanExit(busy, startedAt);
    });

    it("SIGINT with running children: exit 0 within 5 s, no child left", async (t) => {
      const busy = await busyBridge(t, "pid-hang");
      const startedAt = Date.now();
      busy.bridge.child.kill("SIGINT");
      await assertCleanExit(busy, startedAt);
    });

    it("SIGTERM while a flood streams to a reader that stopped reading: exit 0 within 5 s", async (t) => {
      const bridge = await bridgeOf(t, { env: { FIXTURE_BYTES: String(512 * 1024 * 1024) } });
      const task = await bridge.call("message/stream", envelopeParams("flood"));
      await bridge.nextEvent(task.id, (e) => e.kind === "artifact-update", 10_000);
      bridge.pause();
      // Our end holds as much as it takes before it stops reading the pipe: from then on the pipe fills up.
      const stdout = bridge.child.stdout;
      assert.ok(await trueWithin(() => stdout.readableLength >= stdout.readableHighWaterMark, 10_000));
      const startedAt = Date.now();
      bridge.child.kill("SIGTERM");
      const exit = await bridge.waitExit(8000);
      const seconds = (Date.now() - startedAt) / 1000;
      assert.deepEqual(exit, { code: 0, signal: null }, `stderr:\n${bridge.stderr}`);
      assert.ok(seconds < 5, `exited within 5 s (took ${seconds.toFixed(2)} s)`);
    });

    it("a last request without a newline at EOF is answered before the exit", async (t) => {
      const bridge = await bridgeOf(t);
      bridge.sendBytes(JSON.stringify({ jsonrpc: "2.0", id: "last", method: "agent/getCard" }));
      bridge.child.stdin.end();
      const response = await bridge.nextRawResponse();
      assert.equal(response.id, "last");
      assert.equal(response.result?.capabilities?.streaming, true);
      assert.equal((await bridge.waitExit(8000)).code, 0);
    });
  });

  describe("serve --stdio: --instance", { concurrency: AT_ONCE }, () => {
    it("reaches the runner as AIWG_A2A_INSTANCE_ID and appears in the card", async (t) => {
      const instance = "0b9c3f7e-5d2a-4c1b-9e8f-7a6b5c4d3e2f";
      const bridge = await bridgeOf(t, { args: ["--instance", instance] });
      const task = await bridge.call("message/send", envelopeParams("env", { text: "hello env" }));
      assert.equal(task.status.state, "completed");
      const env = JSON.parse(artifactText(task, "stdout"));
      assert.equal(env.AIWG_A2A_INSTANCE_ID, instance);
      assert.equal(env.AIWG_A2A_TASK_ID, task.id);
      assert.equal(env.AIWG_MISSION_ID, task.id);
      assert.equal(env.AIWG_A2A_ADAPTER, "sandbox-agent-runner");
      assert.equal(env.AIWG_A2A_ADAPTER_MODE, "plan");
      assert.equal(env.AIWG_A2A_MESSAGE, "hello env");
      assert.equal(env.PATH, process.env.PATH, "PATH is not changed");
      assert.equal(task.metadata[ADAPTER_URI].instance_id, instance, "the task names the instance that ran it");
      const card = await bridge.call("agent/getCard");
      assert.ok(JSON.stringify(card).includes(instance), JSON.stringify(card));
    });

    it("without --instance, each process gets its own UUID", async (t) => {
      const a = await bridgeOf(t);
      const b = await bridgeOf(t);
      const envA = JSON.parse(artifactText(await a.call("message/send", envelopeParams("env")), "stdout"));
      const envB = JSON.parse(artifactText(await b.call("message/send", envelopeParams("env")), "stdout"));
      assert.match(envA.AIWG_A2A_INSTANCE_ID, /^[0-9a-f-]{36}$/);
      assert.notEqual(envA.AIWG_A2A_INSTANCE_ID, envB.AIWG_A2A_INSTANCE_ID);
    });
  });

  describe("serve --stdio: --state-dir restart", { concurrency: false }, () => {
    // These steps share two bridges and a runner group across tests: they are cleaned up here, not by afterEach.
    const stateDir = tempDir("state");
    const args = ["--state-dir", stateDir, "--settle-ms", "100", "--max-concurrent", "3"];
    const own: RpcBridge[] = [];
    const ownGroups: number[] = [];
    let completed: Wire;
    let hanging: { task: Wire; pgid: number };
    let orphan: { task: Wire; leader: number; grandchild: number };
    let asking: { task: Wire; promptId: string };
    let queued: Wire;
    let second: RpcBridge;

    after(async () => {
      for (const bridge of own) await bridge.close();
      for (const pgid of ownGroups) killGroup(pgid);
    });

    it("before: a completed task, a running one, one at a prompt, one queued; then the bridge is SIGKILLed (and its watchdog)", async () => {
      const first = startBridge({ args });
      own.push(first);
      await first.ready();
      completed = await first.call("message/send", envelopeParams("ok"));
      assert.equal(completed.status.state, "completed");
      hanging = await startWithPid(first, "pid-hang", ownGroups);
      const started = await startWithPid(first, "orphan-on-crash", ownGroups);
      await first.waitTask(
        started.task.id,
        (task) => artifactText(task, "stdout").includes("line 3") && artifactText(task, "stderr") === "err line\n",
      );
      const printed = artifactText(await first.call("tasks/get", { id: started.task.id }), "stdout");
      orphan = { task: started.task, leader: started.pgid, grandchild: Number(/grandchild (\d+)/.exec(printed)?.[1]) };
      assert.ok(orphan.grandchild > 0, printed);
      const prompt = await first.call(
        "message/send",
        envelopeParams("ask", { envelope: { input_mode: "text-line" }, extensions: HITL_URI }),
      );
      assert.equal(prompt.status.state, "input-required");
      asking = { task: prompt, promptId: prompt.status.message.metadata[HITL_URI].prompt_id };
      queued = await first.call("message/send", envelopeParams("ok", { configuration: { blocking: false } }));
      assert.equal((await first.call("tasks/get", { id: queued.id })).status.state, "submitted");

      // The bridge and its watchdog lost together: nothing is left to end the runner (CONTRACT 3.2), so the restart must.
      killToolAndWatchdog(first.child.pid as number);
      const exit = await first.waitExit(5000);
      assert.equal(exit.signal, "SIGKILL");
      assert.ok(groupRunning(hanging.pgid), "the runner's process group outlives the bridge and its watchdog");
      // The orphan's leader exits once its bridge has gone; its grandchild stays, in a group without a leader.
      for (let i = 0; i < 100 && procStat(orphan.leader) !== undefined; i++) await sleep(50);
      assert.equal(procStat(orphan.leader), undefined, "the leader has exited");
      assert.ok(groupRunning(orphan.leader), "its grandchild lives on in the leader's group");
    });

    it("after: unfinished tasks are failed (infrastructure, runtime_restarted) with their output; their processes are gone", async () => {
      assert.ok(hanging, "the step before ran");
      second = startBridge({ args });
      own.push(second);
      await second.ready();
      const task = await second.call("tasks/get", { id: hanging.task.id });
      assert.equal(task.status.state, "failed");
      assert.equal(task.status.fail_kind, "infrastructure");
      assert.equal(task.metadata[ADAPTER_URI].reason, "runtime_restarted");
      assert.equal(task.metadata[ADAPTER_URI].fail_kind, "infrastructure");
      assert.ok(await groupGoneWithin(hanging.pgid, 3000), `the old process group ${hanging.pgid} is gone`);
      const left = await second.call("tasks/get", { id: orphan.task.id });
      assert.equal(left.status.state, "failed");
      assert.equal(left.metadata[ADAPTER_URI].reason, "runtime_restarted");
      assert.equal(
        artifactText(left, "stdout"),
        `pid ${orphan.leader}\ngrandchild ${orphan.grandchild}\nline 1\nline 2\nline 3\n`,
      );
      assert.equal(artifactText(left, "stderr"), "err line\n", "the output printed before the crash is kept");
      assert.ok(await groupGoneWithin(orphan.leader, 3000), "the grandchild whose leader had exited is gone too");
      const waiting = await second.call("tasks/get", { id: queued.id });
      assert.equal(waiting.status.state, "failed", "a task that waited in submitted had not ended either");
      assert.equal(waiting.metadata[ADAPTER_URI].reason, "runtime_restarted");
      // A task sent now runs to its end after anything still waiting would have started.
      assert.equal((await second.call("message/send", envelopeParams("ok"))).status.state, "completed");
      const later = await second.call("tasks/get", { id: queued.id });
      assert.equal(later.status.state, "failed", "and it is not run");
      assert.equal(artifactText(later, "stdout"), "");
    });

    it("after: a task that had completed is still served by tasks/get (with its output) and tasks/list", async () => {
      assert.ok(second && completed, "the steps before ran");
      const got = await second.call("tasks/get", { id: completed.id });
      assert.equal(got.status.state, "completed");
      assert.equal(artifactText(got, "stdout"), "ok\n");
      assert.equal(got.metadata[ADAPTER_URI].exit_code, 0);
      const list = (await second.call("tasks/list", {})).tasks as Wire[];
      const ids = list.map((task) => task.id);
      for (const id of [completed.id, hanging.task.id, asking.task.id, orphan.task.id]) assert.ok(ids.includes(id), id);
      assert.equal(list.find((task) => task.id === completed.id)?.status.state, "completed");
    });

    it("after: an answer to the prompt of a task from before the restart is -32010 no_live_binding", async () => {
      assert.ok(second && asking, "the steps before ran");
      const error = await second.callError("message/send", answerParams(asking.task, asking.promptId, { text: "y" }));
      assert.equal(error.code, -32010, JSON.stringify(error));
      assert.equal(error.data?.reason, "no_live_binding");
      assert.equal(error.data?.extension, HITL_URI);
      assert.equal(error.data?.prompt_id, asking.promptId);
      const task = await second.call("tasks/get", { id: asking.task.id });
      assert.equal(task.status.state, "failed");
      assert.equal(task.metadata[ADAPTER_URI].reason, "runtime_restarted");
      assert.equal((await second.callError("tasks/cancel", { id: asking.task.id })).code, -32002, "it has ended");
    });

    it("after: new tasks run as usual next to the restored ones", async () => {
      assert.ok(second, "the steps before ran");
      const task = await second.call("message/send", envelopeParams("ok"));
      assert.equal(task.status.state, "completed");
      assert.deepEqual(second.protocolProblems, []);
    });
  });

  describe("serve --stdio: backpressure", { concurrency: false }, () => {
    it("a consumer that stops reading: the bridge's memory stays bounded; then everything arrives, the task completes", async (t) => {
      const FLOOD = 209_715_200;
      let stdoutBytes = 0;
      const bridge = await bridgeOf(t, {
        env: { FIXTURE_BYTES: String(FLOOD) },
        onEvent: (event) => {
          if (event.kind !== "artifact-update") return true;
          if (event.artifact.artifactId === "stdout") {
            for (const part of event.artifact.parts) stdoutBytes += Buffer.byteLength(part.text);
          }
          return false; // 200 MiB need not be kept
        },
      });
      const response = bridge.callRaw(
        "message/stream",
        envelopeParams("flood", { envelope: { timeout_seconds: 120 } }),
        60_000,
      );
      bridge.pause();

      const samples: number[] = [];
      const wrote: number[] = [];
      let child: number | undefined;
      for (let i = 0; i < 6; i++) {
        await sleep(500);
        child ??= childOf(bridge.pid, "flood");
        const rss = rssKiB(bridge.pid);
        if (rss !== undefined) samples.push(rss);
        const w = child === undefined ? undefined : written(child);
        if (w !== undefined) wrote.push(w);
      }
      t.diagnostic(`bridge VmRSS samples (KiB): ${samples.join(", ")}; runner wchar samples: ${wrote.join(", ")}`);
      assert.ok(samples.length > 0, "VmRSS could be read");
      const peakMiB = Math.max(...samples) / 1024;
      assert.ok(
        peakMiB < 300,
        `the bridge's RSS stays under 300 MiB while nobody reads (peak ${peakMiB.toFixed(1)} MiB)`,
      );
      assert.ok(child !== undefined, "the flood runner is running");
      if (wrote.length >= 2) {
        // Between the second sample and the last, the runner is stalled: the bridge does not read its output.
        const progressed = (wrote.at(-1) as number) - (wrote[1] as number);
        assert.ok(progressed < 16 * 1024 * 1024, `the runner wrote ${progressed} bytes while stdout was not read`);
      }

      bridge.resume();
      const task = (await response).result;
      assert.ok(task, "the stream's result");
      const final = await bridge.nextEvent(task.id, (e) => e.kind === "status-update" && e.final === true, 50_000);
      assert.equal(final.status.state, "completed", JSON.stringify(final.status));
      assert.equal(stdoutBytes, FLOOD, "every byte of the runner's stdout reached the events");
      assert.deepEqual(bridge.protocolProblems, []);
      const got = await bridge.call("tasks/get", { id: task.id });
      assert.equal(got.status.state, "completed");
      const kept = (got.artifacts as Wire[]).find((a) => a.artifactId === "stdout");
      assert.ok(kept.metadata.dropped_bytes > 0, "the record keeps a bounded part and counts what it dropped");
      assert.equal(kept.metadata.total_bytes, FLOOD);
    });
  });
});
