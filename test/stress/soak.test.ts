// Soak: 500 tasks at --max-concurrent 16 through one bridge, each writing its own payload (CONTRACT 3.3, 5.5).
// Every byte is accounted for by sha256, no runner outlives its task, and the bridge's memory stays bounded.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI as ADAPTER } from "../../src/core/uris.js";
import { RpcBridge } from "../helpers/bridge.js";
import { FIXTURES, sleep } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { payloadFor } from "../helpers/fixture-output.js";
import { allTasks } from "../helpers/list-pages.js";
import { HAS_PROC, MiB, processesWith, rssOf, runnersOf } from "../helpers/processes.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const TASKS = 500;
const CONCURRENT = 16;
const WARM_UP = 50;
const RUNNER_DIR = join(FIXTURES, "payload-msg");

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

describe("soak: 500 tasks through one bridge", { skip: !HAS_PROC && "needs /proc (RSS and process checks)" }, () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge({ args: ["--max-concurrent", String(CONCURRENT)] });
  });
  after(() => bridge.kill());

  it(`${TASKS} tasks at --max-concurrent ${CONCURRENT}: every byte by sha256, no runner left, RSS bounded`, async (t) => {
    const messages = Array.from({ length: TASKS }, (_, i) => `soak-${i}-${Math.random().toString(36).slice(2, 10)}`);
    const expected = messages.map((text) => {
      const payload = payloadFor(text);
      return { stdout: sha256(payload.stdout), stderr: sha256(payload.stderr), bytes: payload };
    });

    let maxRunning = 0;
    let running = 0;
    let sampling = true;
    // While tasks run: how many runner processes at once (never more than --max-concurrent).
    const sampler = (async () => {
      while (sampling) {
        running = runnersOf(bridge.pid).length;
        maxRunning = Math.max(maxRunning, running);
        await sleep(25);
      }
    })();

    let rssWarm: number | undefined;
    let done = 0;
    const failures: string[] = [];
    const check = async (index: number) => {
      const text = messages[index] as string;
      const sent: Wire = await bridge.callRaw("message/send", envelopeParams("payload-msg", { text }), 300_000);
      if (sent.error) {
        failures.push(`task ${index}: message/send failed: ${JSON.stringify(sent.error)}`);
        return;
      }
      const ended = sent.result;
      if (ended.status.state !== "completed") {
        failures.push(`task ${index}: ${ended.status.state} (${JSON.stringify(ended.status.message?.parts)})`);
        return;
      }
      const task = await bridge.call("tasks/get", { id: ended.id });
      for (const stream of ["stdout", "stderr"] as const) {
        const got = artifactText(task, stream);
        const want = expected[index]?.[stream];
        if (sha256(got) !== want) {
          const full = expected[index]?.bytes[stream] ?? "";
          failures.push(
            `task ${index} ${stream}: sha256 differs (${Buffer.byteLength(got)} bytes, expected ${Buffer.byteLength(full)})`,
          );
        }
        const artifact = task.artifacts.find((a: Wire) => a.artifactId === stream);
        if (artifact?.metadata?.dropped_bytes !== 0)
          failures.push(`task ${index} ${stream}: dropped_bytes ${artifact?.metadata?.dropped_bytes}`);
      }
      // Sequence numbers are shared by both streams and strictly increase within each.
      const seqs = task.artifacts.flatMap((a: Wire) => a.parts.map((p: Wire) => p.metadata.seq as number));
      if (new Set(seqs).size !== seqs.length) failures.push(`task ${index}: a seq number used twice`);
      if (task.metadata[ADAPTER].exit_code !== 0)
        failures.push(`task ${index}: exit code ${task.metadata[ADAPTER].exit_code}`);
      done += 1;
      if (done === WARM_UP) rssWarm = rssOf(bridge.pid);
    };

    // All requests at once: the bridge queues what it can't run yet (CONTRACT 5.5: they wait in submitted).
    await Promise.all(messages.map((_, index) => check(index)));
    sampling = false;
    await sampler;
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failure(s)`);
    assert.equal(done, TASKS);
    assert.ok(maxRunning <= CONCURRENT, `at most ${CONCURRENT} runners at once, saw ${maxRunning}`);
    assert.ok(maxRunning >= 2, `tasks ran concurrently (saw at most ${maxRunning} at once)`);

    // No runner outlived its task: none of the bridge's children, and no payload-msg runner anywhere.
    await sleep(200);
    assert.deepEqual(runnersOf(bridge.pid), [], "the bridge has no child process left (but its watchdog)");
    assert.deepEqual(processesWith(RUNNER_DIR), [], "no payload-msg runner is left");

    // Memory: the end within 2× + 50 MiB of the RSS after the first 50 tasks (the store keeps up to 500 ended tasks
    // with ~20 KiB of output each, so some growth is expected; a leak per task would not fit).
    const rssEnd = rssOf(bridge.pid);
    assert.ok(rssWarm !== undefined && rssEnd !== undefined, "RSS readable from /proc");
    const bound = 2 * (rssWarm as number) + 50 * MiB;
    t.diagnostic(
      `RSS after ${WARM_UP} tasks ${((rssWarm as number) / MiB).toFixed(1)} MiB, at the end ${((rssEnd as number) / MiB).toFixed(1)} MiB; at most ${maxRunning} runners at once`,
    );
    assert.ok(
      (rssEnd as number) < bound,
      `RSS ${((rssEnd as number) / MiB).toFixed(1)} MiB at the end, ${((rssWarm as number) / MiB).toFixed(1)} MiB after ${WARM_UP} tasks (bound ${(bound / MiB).toFixed(1)} MiB)`,
    );

    const listed = await allTasks(bridge);
    assert.equal(listed.length, TASKS);
    assert.ok(listed.every((t: Wire) => t.status.state === "completed"));
    assert.deepEqual(bridge.protocolProblems, [], "stdout carries protocol lines only");

    const exit = await bridge.close();
    assert.deepEqual(exit, { code: 0, signal: null }, bridge.stderr.slice(-2000));
    assert.deepEqual(processesWith(RUNNER_DIR), [], "no payload-msg runner is left after the bridge exited");
  });
});
