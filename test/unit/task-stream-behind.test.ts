// A task stream whose reader may not hold the task back while stalled (HTTP, CONTRACT 8.4): its output is held as for
// any reader until it is stalled, then not; past the byte limit the stream fails with slow_consumer. Against a real
// flood runner.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { analyzeSendParams } from "../../src/a2a/input-file.js";
import { TaskStream } from "../../src/a2a/task-stream.js";
import { CoreError } from "../../src/core/errors.js";
import { Dispatcher, type DispatcherEvent } from "../../src/core/task/dispatcher.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { output, taskView } from "../helpers/events.js";

const FLOOD = 32 * 1024 * 1024;
const saved = process.env.FIXTURE_BYTES;
process.env.FIXTURE_BYTES = String(FLOOD);
after(() => {
  if (saved === undefined) delete process.env.FIXTURE_BYTES;
  else process.env.FIXTURE_BYTES = saved;
});

function flood() {
  const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: FIXTURES, outputLimitBytes: 1024 * 1024 });
  const task = dispatcher.submit({ analysis: analyzeSendParams(envelopeParams("flood")), hitlActivated: false });
  return { dispatcher, id: task.id };
}

/** Reads a stream to its end: the output bytes and the last state. */
async function readAll(stream: TaskStream): Promise<{ bytes: number; last: string | undefined }> {
  let bytes = 0;
  let last: string | undefined;
  for await (const item of stream) {
    if (item.type === "output") bytes += item.data.length;
    if (item.type === "status") last = item.task.state;
  }
  return { bytes, last };
}

/** Resolves when `dispatcher[method]` is next called for `id`. */
function called(dispatcher: Dispatcher, method: "holdOutput" | "releaseOutput", id: string): Promise<void> {
  const original = dispatcher[method].bind(dispatcher);
  return new Promise((resolve) => {
    dispatcher[method] = (taskId: string) => {
      original(taskId);
      if (taskId === id) resolve();
    };
  });
}

describe("TaskStream.failWhenBehind", { timeout: 30_000 }, () => {
  it("a reader that does not read holds the output until it is stalled; then the task completes and the stream fails with slow_consumer", async () => {
    const { dispatcher, id } = flood();
    const stream = new TaskStream(dispatcher, id, "ended");
    const held = called(dispatcher, "holdOutput", id);
    assert.equal((await stream.next()).value?.type, "task");
    const failed = stream.failWhenBehind(1024 * 1024);
    await held;
    assert.notEqual(dispatcher.get(id, false).state, "completed");
    const released = called(dispatcher, "releaseOutput", id);
    stream.stalled(true);
    await released;
    await dispatcher.settled(id);
    assert.equal(dispatcher.get(id, false).state, "completed");
    const error = await failed;
    assert.ok(error instanceof CoreError);
    assert.equal(error.code, "slow_consumer");
    assert.equal(error.data.task_id, id);
    await assert.rejects(stream.next(), (thrown) => thrown === error);
  });

  it("a reader stalled while less than the limit waits gets every byte once it reads again", async () => {
    const { dispatcher, id } = flood();
    const stream = new TaskStream(dispatcher, id, "ended");
    let failed = false;
    void stream.failWhenBehind(2 * FLOOD).then(() => (failed = true));
    stream.stalled(true);
    await dispatcher.settled(id);
    stream.stalled(false);
    assert.deepEqual(await readAll(stream), { bytes: FLOOD, last: "completed" });
    assert.equal(failed, false);
  });

  it("a reader that keeps up gets every byte and the end, and never fails", async () => {
    const { dispatcher, id } = flood();
    const stream = new TaskStream(dispatcher, id, "ended");
    let failed = false;
    void stream.failWhenBehind(4 * 1024 * 1024).then(() => (failed = true));
    assert.deepEqual(await readAll(stream), { bytes: FLOOD, last: "completed" });
    assert.equal(failed, false);
  });

  it("a stalled reader with many tiny chunks waiting fails by their count, far below the byte limit", async () => {
    let listener!: (event: DispatcherEvent) => void;
    const fake = {
      get: () => taskView(),
      subscribe: (take: (event: DispatcherEvent) => void) => {
        listener = take;
        return () => {};
      },
      holdOutput: () => {},
      releaseOutput: () => {},
    } as unknown as Dispatcher;
    const stream = new TaskStream(fake, "task-1", "ended");
    let failed: CoreError | undefined;
    void stream.failWhenBehind(1024 * 1024 * 1024).then((error) => (failed = error));
    stream.stalled(true);
    let sent = 0;
    while (sent < 100_000) {
      listener(output("."));
      sent += 1;
      await Promise.resolve();
      if (failed) break;
    }
    assert.equal(failed?.code, "slow_consumer");
    assert.ok(sent > 60_000 && sent < 70_000, `failed after ${sent} one-byte chunks`);
  });
});
