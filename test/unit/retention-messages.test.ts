// Ended tasks are kept within a byte budget that counts their messages too, not only their output.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OutputLog } from "../../src/core/task/output-log.js";
import type { TaskRecord } from "../../src/core/task/task-record.js";
import { keptBytes, MemoryStore } from "../../src/store/memory.js";

function ended(id: string, text: string): TaskRecord {
  return {
    id,
    contextId: "ctx",
    instanceId: "instance",
    dispatch: "echo",
    state: "completed",
    updatedAt: "2026-01-01T00:00:00.000Z",
    createdAt: "2026-01-01T00:00:00.000Z",
    exitCode: 0,
    signal: null,
    textLine: false,
    extensions: [],
    messageText: text,
    message: { role: "user", parts: [{ type: "text", text }] },
    stdout: new OutputLog(1024),
    stderr: new OutputLog(1024),
    seq: 0,
    statusEvents: 1,
    revision: 0,
  };
}

describe("retention counts messages", () => {
  it("a task with no output but a large request costs its request's bytes", () => {
    assert.ok(keptBytes(ended("a", "m".repeat(10_000))) > 10_000);
  });

  it("ended tasks whose requests are over the budget are let go, oldest first", () => {
    const store = new MemoryStore(500, 25_000);
    for (const id of ["t0", "t1", "t2", "t3"]) store.put(ended(id, "m".repeat(10_000)));
    assert.deepEqual(
      store.all().map((r) => r.id),
      ["t2", "t3"],
    );
  });
});
