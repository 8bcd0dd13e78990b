// MemoryStore and JournalStore keep a bounded number of ended tasks: the oldest ended go first.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { JournalStore } from "../../src/core/journal.js";
import { OutputLog } from "../../src/core/output-log.js";
import { MemoryStore } from "../../src/core/store.js";
import type { TaskState } from "../../src/core/task.js";
import type { TaskRecord } from "../../src/core/task-record.js";

function record(id: string, state: TaskState, outputBytes = 0, limit = 1024): TaskRecord {
  const stdout = new OutputLog(limit);
  if (outputBytes > 0) stdout.append({ seq: 1, stream: "stdout", text: "x".repeat(outputBytes), bytes: outputBytes });
  return {
    id,
    contextId: "ctx",
    instanceId: "instance",
    dispatch: "echo",
    state,
    updatedAt: "2026-01-01T00:00:00.000Z",
    createdAt: "2026-01-01T00:00:00.000Z",
    exitCode: null,
    signal: null,
    textLine: false,
    extensions: [],
    messageText: "",
    stdout,
    stderr: new OutputLog(limit),
    seq: 0,
    revision: 0,
  };
}

describe("MemoryStore", () => {
  it("a long task submitted first is not forgotten the moment it ends", () => {
    const store = new MemoryStore(2);
    const long = record("long", "working");
    store.put(long);
    for (const id of ["a", "b", "c"]) store.put(record(id, "completed"));
    long.state = "completed";
    store.put(long);
    assert.ok(store.get("long"), "the task that just ended is kept");
    assert.deepEqual(
      store.all().map((r) => r.id),
      ["c", "long"],
    );
  });

  it("forgets the oldest ended tasks once their output is over the byte budget, but never the last one", () => {
    const store = new MemoryStore(500, 2500);
    for (let i = 0; i < 5; i++) store.put(record(`t${i}`, "completed", 1000));
    assert.deepEqual(
      store.all().map((r) => r.id),
      ["t3", "t4"],
    );
    const alone = new MemoryStore(500, 10);
    alone.put(record("big", "completed", 1000));
    assert.ok(alone.get("big"), "one ended task is kept, however big");
  });

  it("never forgets a task that has not ended", () => {
    const store = new MemoryStore(1);
    store.put(record("running", "working"));
    for (const id of ["a", "b", "c"]) store.put(record(id, "failed"));
    assert.ok(store.get("running"));
    assert.equal(store.all().length, 2);
  });
});

describe("JournalStore", () => {
  it("a restart keeps only the newest ended tasks, and the journal stays short", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    for (let round = 0; round < 3; round++) {
      const store = new JournalStore(dir, 1024, 2);
      store.recover(new Date());
      for (let i = 0; i < 3; i++) store.put(record(`r${round}-${i}`, "completed"));
    }
    const store = new JournalStore(dir, 1024, 2);
    const { restored } = store.recover(new Date());
    // 2 kept from the round before plus the 3 of the last round; without trimming it would be all 9.
    assert.equal(restored, 5);
    assert.deepEqual(
      store.all().map((r) => r.id),
      ["r2-1", "r2-2"],
    );
    const lines = readFileSync(join(dir, "tasks.ndjson"), "utf8").trim().split("\n");
    assert.equal(lines.length, 2, "compacted to one line a kept task");
  });

  it("restores entries longer than the 1 MiB it reads at a time, across read boundaries", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const limit = 8 * 1024 * 1024;
    const first = new JournalStore(dir, limit);
    first.recover(new Date());
    const sizes = [3 * 1024 * 1024 + 7, 10, 2 * 1024 * 1024 - 3];
    for (const [i, size] of sizes.entries()) first.put(record(`big${i}`, "completed", size, limit));
    const second = new JournalStore(dir, limit);
    assert.equal(second.recover(new Date()).restored, 3);
    for (const [i, size] of sizes.entries()) assert.equal(second.get(`big${i}`)?.stdout.keptBytes, size);
    rmSync(dir, { recursive: true, force: true });
  });

  it("an ended task whose output came in tiny chunks (a journal line of over 64 MiB) comes back completed", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const limit = 8 * 1024 * 1024;
    const first = new JournalStore(dir, limit);
    first.recover(new Date());
    const task = record("fine", "working", 0, limit);
    first.put(task);
    for (let seq = 1; seq <= 1_300_000; seq++) task.stdout.append({ seq, stream: "stdout", text: "ab", bytes: 2 });
    task.state = "completed";
    first.put(task);
    const second = new JournalStore(dir, limit);
    assert.deepEqual(second.recover(new Date()), { restored: 1, interrupted: 0 });
    assert.equal(second.get("fine")?.state, "completed");
    rmSync(dir, { recursive: true, force: true });
  });

  it("rewrites the journal once appended output passes the byte budget", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const store = new JournalStore(dir, 1 << 20, 500, 20_000);
    store.recover(new Date());
    for (let i = 0; i < 100; i++) store.put(record(`t${i}`, "completed", 1000, 1 << 20));
    const size = statSync(join(dir, "tasks.ndjson")).size;
    assert.ok(size < 3 * 20_000 + 100 * 600, `journal of ${size} bytes for a 20 000-byte budget`);
  });

  it("compacts a long-running journal by itself", () => {
    const dir = mkdtempSync(join(tmpdir(), "journal-"));
    const store = new JournalStore(dir, 1024, 2);
    store.recover(new Date());
    for (let i = 0; i < 200; i++) store.put(record(`t${i}`, "completed"));
    const lines = readFileSync(join(dir, "tasks.ndjson"), "utf8").trim().split("\n");
    assert.ok(lines.length < 100, `${lines.length} lines for 2 kept tasks`);
  });
});
