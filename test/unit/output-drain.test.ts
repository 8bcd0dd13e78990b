// OutputDrain: when a finished command's streams may be given up (issue item 12; src/core/task/output-drain.ts). Time is
// handed in, so the rules are checked without waiting.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { outcomeOf } from "../../src/core/task/outcome.js";
import { IDLE_MS, OutputDrain } from "../../src/core/task/output-drain.js";

const drainAt = (exit = 0, deadline = 60_000, capacity = 1_000_000) => {
  const drain = new OutputDrain(deadline, capacity);
  drain.exited(exit);
  return drain;
};

describe("OutputDrain", () => {
  it("waits while the pipes are read, however long after the exit", () => {
    const drain = drainAt();
    for (let t = 500; t < 20_000; t += 1500) {
      drain.read(10, t);
      assert.notEqual(drain.wait(t + 100), "cut");
    }
  });

  it("never gives up a paused stream (backpressure): paused time does not count", () => {
    const drain = drainAt();
    drain.pause();
    assert.notEqual(drain.wait(10 * IDLE_MS), "cut");
    drain.resume(10 * IDLE_MS);
    assert.notEqual(drain.wait(10 * IDLE_MS + IDLE_MS - 1), "cut", "the idle time starts again at the resume");
  });

  it("a starved reader gets one more turn of the event loop before a pipe counts as held open", () => {
    const drain = drainAt();
    const first = drain.wait(IDLE_MS + 5000);
    assert.equal(typeof first, "number", "idle by the clock: look once more");
    drain.read(4096, IDLE_MS + 5001); // the next turn read what the pipe held
    assert.notEqual(drain.wait(IDLE_MS + 5002), "cut");
    assert.notEqual(drain.wait(2 * IDLE_MS + 5001), "cut", "one more look after a new idle spell");
    assert.equal(drain.wait(2 * IDLE_MS + 5002), "cut", "idle, and the extra turn brought nothing: held open");
  });

  it("gives up at the deadline, past what a pipe can hold, and soon on shutdown", () => {
    assert.equal(drainAt(0, 100).wait(100), "cut");
    const flood = drainAt();
    flood.read(1_000_001, 10);
    assert.equal(flood.wait(11), "cut");
    const hurried = drainAt();
    hurried.hurry();
    assert.notEqual(hurried.wait(1), "cut", "at shutdown, what flows is still read a moment");
    assert.notEqual(hurried.wait(400), "cut", "with one more look");
    assert.equal(hurried.wait(401), "cut");
    const pausedAtShutdown = drainAt();
    pausedAtShutdown.pause();
    pausedAtShutdown.hurry();
    assert.equal(pausedAtShutdown.wait(1), "cut", "a paused stream is given up at shutdown");
  });

  it("a task whose streams were given up says so", () => {
    const outcome = outcomeOf({ exitCode: 0, signal: null, stoppedBy: null, heldOpen: ["stdout"] }, 30);
    assert.equal(outcome.state, "completed");
    assert.match(outcome.text, /stdout still held open by a process no guard finds/);
  });
});
