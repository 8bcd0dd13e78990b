// Event numbers (CONTRACT 9.4): a task's events are numbered from 1, status and output together, and the number
// survives a restart on a state dir, the status that fails an interrupted task coming after its stored output.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lastEventOf, viewOf } from "../../src/core/task/task-record.js";
import { appendOutput, openStore, taskRecord, tempDir } from "../helpers/state-dir.js";

describe("event numbers", () => {
  it("a view counts the status events and the output events", () => {
    const record = taskRecord("t1", "working");
    record.statusEvents = 2;
    record.seq = 5;
    assert.equal(lastEventOf(record), 7);
    assert.equal(viewOf(record, false).lastEvent, 7);
  });

  it("are kept by the state dir: an ended task reads back its number; an interrupted one fails after its output", async () => {
    const dir = tempDir("numbers");
    const { store } = await openStore(dir, { flushMs: 0 });
    const ended = taskRecord("ended", "working");
    ended.statusEvents = 2;
    store.put(ended);
    appendOutput(store, ended, "stdout", "a");
    appendOutput(store, ended, "stdout", "b");
    ended.state = "completed";
    ended.statusEvents = 3;
    store.put(ended);
    const running = taskRecord("running", "working");
    running.statusEvents = 2;
    store.put(running);
    appendOutput(store, running, "stdout", "x");
    appendOutput(store, running, "stderr", "y");
    (store as { flush?: () => void }).flush?.();
    store.close?.();
    const reopened = (await openStore(dir)).store;
    try {
      assert.equal(viewOf(reopened.get("ended", false) as never, false).lastEvent, 5);
      const failed = reopened.get("running") as never as { state: string };
      assert.equal(failed.state, "failed");
      assert.equal(viewOf(failed as never, false).lastEvent, 5, "2 statuses, 2 outputs, then the failure: 5");
    } finally {
      reopened.close?.();
    }
  });
});
