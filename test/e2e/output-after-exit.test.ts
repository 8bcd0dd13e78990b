// Issue item 12 (CONTRACT 3.3: every byte of output reaches the task): what a command wrote just before it exited is
// still in its pipes, and is read to the end however long the reader was starved. Here the starving is the bridge's
// own backpressure: its stdout is not read, so it stops reading every task's output (CONTRACT 5.5), and a runner
// writes 48 KiB and 16 KiB and exits at once, its output left in the pipes for longer than the 2 s after which the
// streams used to be destroyed unread. Node resumes a child's streams when it exits, so the loss needs the streams
// paused again after the exit (or the event loop starved between the exit and the read), which a test cannot time
// from outside; test/unit/output-drain.test.ts checks those rules one by one.
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { sleep } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { childOf, HAS_PROC, pidRunning, written } from "../helpers/processes.js";
import { tempDir } from "../helpers/state-dir.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const bridges: RpcBridge[] = [];
after(async () => {
  for (const bridge of bridges) await bridge.close();
});

/** What the write-and-exit fixture writes on one stream. */
function linesOf(kind: string, size: number): string {
  let text = "";
  for (let i = 0; text.length < size; i++) text += `${kind} ${String(i).padStart(6, "0")}\n`;
  return text.slice(0, size);
}

/** Polls `condition` every 50 ms for up to `ms`; fails the test with `what` if it never holds. */
async function until(condition: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) assert.fail(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

/** How long the old code waited before destroying a finished command's streams (src/core/task/output-drain.ts IDLE_MS). */
const OLD_BOUND_MS = 2000;

describe("output still in the pipes when the command exits (issue item 12)", {
  skip: !HAS_PROC && "reads /proc",
}, () => {
  it("is read to the end while the bridge's stdout is not read for longer than the old 2 s bound", async () => {
    const pidDir = tempDir("pids");
    const env = { ...process.env, FIXTURE_BYTES: String(512 * 1024 * 1024), FIXTURE_PID_DIR: pidDir };
    const bridge = startBridge({ env, onEvent: () => false });
    bridges.push(bridge);
    await bridge.ready();
    bridge.pause();
    // The runner waits for the go file; then a flood fills the bridge's stdout, which nobody reads: the bridge stops
    // reading every task's output.
    const send = bridge.callRaw("message/send", envelopeParams("write-and-exit"), 60_000);
    const flood = bridge.callRaw(
      "message/stream",
      envelopeParams("flood", { envelope: { timeout_seconds: 120 } }),
      60_000,
    );
    let floodPid: number | undefined;
    await until(() => {
      floodPid ??= childOf(bridge.pid, "flood");
      return floodPid !== undefined;
    }, "the flood runs");
    // Stalled: the flood wrote nothing for 500 ms, so its pipe is full and nobody reads it.
    let last = -1;
    let quietSince = Date.now();
    await until(() => {
      const now = written(floodPid as number) ?? 0;
      if (now !== last) [last, quietSince] = [now, Date.now()];
      return Date.now() - quietSince > 500;
    }, "the bridge stops reading the flood's output");

    writeFileSync(join(pidDir, "go"), "");
    let runner: number | undefined;
    await until(() => {
      const name = readdirSync(pidDir).find((entry) => entry.startsWith("write-and-exit-"));
      runner = name === undefined ? undefined : Number(name.slice("write-and-exit-".length));
      return runner !== undefined && !pidRunning(runner);
    }, "the runner has written everything and exited");
    // Its output is unread in the pipes; the old code gave it up 2 s after the exit. Waiting past that bound is the
    // point of the test (there is no event to wait for: the loss was a timer's).
    await sleep(OLD_BOUND_MS + 1500);

    bridge.resume();
    await bridge.call("tasks/cancel", { id: (await flood).result.id });
    const task = (await send).result;
    assert.ok(task, JSON.stringify(await send));
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    for (const [stream, kind, size] of [
      ["stdout", "out", 48 * 1024],
      ["stderr", "err", 16 * 1024],
    ] as const) {
      const text = artifactText(task, stream);
      assert.equal(text.length, size, `${stream}: ${text.length} of ${size} bytes arrived`);
      assert.equal(text, linesOf(kind, size), `${stream}: every byte, in order`);
      const artifact = (task.artifacts as Wire[]).find((a) => a.artifactId === stream);
      assert.equal(artifact.metadata.total_bytes, size);
      assert.equal(artifact.metadata.dropped_bytes ?? 0, 0);
    }
    assert.doesNotMatch(task.status.message?.parts?.[0]?.text ?? "", /held open/);
  });
});
