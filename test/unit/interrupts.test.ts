// One interrupt policy for the screen and the plain mode (CONTRACT section 6): the first Ctrl-C cancels the task,
// a second kills its process group at once; a hang-up does both; SIGINT, SIGTERM and SIGHUP are heard until stopped.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { describe, it } from "node:test";
import { Interrupts } from "../../src/ui/interrupts.js";

function recorder() {
  const calls: string[] = [];
  const dispatcher = {
    cancelIfRunning: (id: string) => calls.push(`cancel ${id}`),
    killAll: () => calls.push("kill"),
  };
  return { calls, dispatcher };
}

describe("Interrupts", () => {
  it("the first interrupt cancels the task, the second and later kill at once; each is told with its count", () => {
    const { calls, dispatcher } = recorder();
    const told: number[] = [];
    const interrupts = new Interrupts(dispatcher, "task-1", (count) => told.push(count));
    interrupts.interrupt();
    assert.deepEqual(calls, ["cancel task-1"]);
    interrupts.interrupt();
    interrupts.interrupt();
    assert.deepEqual(calls, ["cancel task-1", "kill", "kill"]);
    assert.deepEqual(told, [1, 2, 3]);
  });

  it("a hang-up cancels and kills at once", () => {
    const { calls, dispatcher } = recorder();
    new Interrupts(dispatcher, "task-1").hangUp();
    assert.deepEqual(calls, ["cancel task-1", "kill"]);
  });

  it("listens to SIGINT and SIGTERM (interrupts) and SIGHUP (hang-up) until stopped", () => {
    const { calls, dispatcher } = recorder();
    const signals = new EventEmitter();
    const stop = new Interrupts(dispatcher, "task-1").listen(signals);
    signals.emit("SIGINT");
    signals.emit("SIGTERM");
    assert.deepEqual(calls, ["cancel task-1", "kill"]);
    signals.emit("SIGHUP");
    assert.deepEqual(calls, ["cancel task-1", "kill", "cancel task-1", "kill"]);
    stop();
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) assert.equal(signals.listenerCount(signal), 0, signal);
  });
});
