// FlowControl: a full consumer pauses the producer once, and its drain resumes it.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { describe, it } from "node:test";
import { FlowControl } from "../../src/io/backpressure.js";

/** A sink that takes nothing until `release`, then everything. */
function slowSink() {
  const pending: Array<() => void> = [];
  let open = false;
  const sink = new Writable({
    highWaterMark: 16,
    write(_chunk, _encoding, done) {
      if (open) done();
      else pending.push(done);
    },
  });
  const release = () => {
    open = true;
    for (const done of pending.splice(0)) done();
  };
  return { sink, release };
}

describe("FlowControl", () => {
  it("pauses when a write finds the stream full, once, and resumes on drain", async () => {
    const calls: string[] = [];
    const flow = new FlowControl({ pauseOutput: () => calls.push("pause"), resumeOutput: () => calls.push("resume") });
    const { sink, release } = slowSink();
    for (let i = 0; i < 5; i++) flow.write(sink, "0123456789abcdef-more");
    assert.deepEqual(calls, ["pause"]);
    const drained = flow.drained();
    release();
    await drained;
    assert.deepEqual(calls, ["pause", "resume"]);
  });

  it("resumes only when every full stream has drained", async () => {
    const calls: string[] = [];
    const flow = new FlowControl({ pauseOutput: () => calls.push("pause"), resumeOutput: () => calls.push("resume") });
    const a = slowSink();
    const b = slowSink();
    flow.write(a.sink, "x".repeat(64));
    flow.write(b.sink, "x".repeat(64));
    a.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, ["pause"], "b is still full");
    b.release();
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, ["pause", "resume"]);
  });

  it("waiting for a drain, again and again, leaves no listener behind", async () => {
    const flow = new FlowControl({ pauseOutput: () => {}, resumeOutput: () => {} });
    const { sink, release } = slowSink();
    const before = sink.listenerCount("close") + sink.listenerCount("drain");
    flow.write(sink, "x".repeat(64));
    const waits = Array.from({ length: 20 }, () => flow.drained());
    release();
    await Promise.all(waits);
    assert.equal(sink.listenerCount("close") + sink.listenerCount("drain"), before);
  });
});
