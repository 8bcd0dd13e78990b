// Both stores keep a bounded number of ended tasks, the oldest ended first to go; the SQLite store (--state-dir) also
// keeps them across a restart.
import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import type { TaskStore } from "../../src/core/store.js";
import { MemoryStore } from "../../src/store/memory.js";
import { DB_FILE } from "../../src/store/open.js";
import { detailOf } from "../../src/store/rows.js";
import type { SqliteStore } from "../../src/store/sqlite.js";
import { appendOutput, openStore, taskRecord as record, tempDir } from "../helpers/state-dir.js";

const ids = (store: TaskStore) =>
  store
    .all(false)
    .map((r) => r.id)
    .sort();

/** The same retention rules, for each store: a fresh one made by `make(keptEnded, keptEndedBytes)`. */
const stores: Array<[string, (kept?: number, bytes?: number) => Promise<TaskStore>]> = [
  ["MemoryStore", async (kept, bytes) => new MemoryStore(kept, bytes)],
  [
    "SQLite store",
    async (kept, bytes) =>
      (
        await openStore(tempDir(), {
          ...(kept === undefined ? {} : { keptEnded: kept }),
          // Its budget counts each row's text too: with room for two of them, the same tasks fit as in memory.
          ...(bytes === undefined
            ? {}
            : { keptEndedBytes: bytes + 2 * Buffer.byteLength(detailOf(record("", "completed"))) }),
        })
      ).store,
  ],
];

for (const [name, make] of stores) {
  describe(`${name}: retention`, () => {
    it("a long task submitted first is not forgotten the moment it ends", async () => {
      const store = await make(2);
      const long = record("long", "working");
      store.put(long);
      for (const id of ["a", "b", "c"]) store.put(record(id, "completed"));
      long.state = "completed";
      store.put(long);
      assert.ok(store.get("long"), "the task that just ended is kept");
      assert.deepEqual(ids(store), ["c", "long"]);
      store.close?.();
    });

    it("forgets the oldest ended tasks once their output is over the byte budget, but never the last one", async () => {
      const store = await make(500, 2500);
      for (let i = 0; i < 5; i++) store.put(record(`t${i}`, "completed", 1000));
      assert.deepEqual(ids(store), ["t3", "t4"]);
      store.close?.();
      const alone = await make(500, 10);
      alone.put(record("big", "completed", 1000));
      assert.ok(alone.get("big"), "one ended task is kept, however big");
      alone.close?.();
    });

    it("an ended task written again counts once against the byte budget", async () => {
      const store = await make(500, 2500);
      const again = record("again", "completed", 1000);
      for (let i = 0; i < 3; i++) store.put(again);
      store.put(record("next", "completed", 1000));
      assert.deepEqual(ids(store), ["again", "next"]);
      store.close?.();
    });

    it("never forgets a task that has not ended", async () => {
      const store = await make(1);
      store.put(record("running", "working"));
      for (const id of ["a", "b", "c"]) store.put(record(id, "failed"));
      assert.ok(store.get("running"));
      assert.equal(store.all().length, 2);
      store.close?.();
    });
  });
}

describe("SQLite store: across restarts", () => {
  it("a restart keeps only the newest ended tasks", async () => {
    const dir = tempDir();
    for (let round = 0; round < 3; round++) {
      const { store } = await openStore(dir, { keptEnded: 2 });
      for (let i = 0; i < 3; i++) store.put(record(`r${round}-${i}`, "completed"));
      store.close?.();
    }
    const { store, lines } = await openStore(dir, { keptEnded: 2 });
    assert.deepEqual(ids(store), ["r2-1", "r2-2"]);
    assert.match(lines.join("\n"), /restored 2 task\(s\)/);
    store.close?.();
  });

  it("restores outputs of several MiB exactly, chunk by chunk", async () => {
    const dir = tempDir();
    const limit = 8 * 1024 * 1024;
    const first = (await openStore(dir, { outputLimit: limit })).store;
    const sizes = [3 * 1024 * 1024 + 7, 10, 2 * 1024 * 1024 - 3];
    for (const [i, size] of sizes.entries()) {
      const task = record(`big${i}`, "working", 0, limit / 2);
      first.put(task);
      appendOutput(first, task, "stdout", "y".repeat(size));
      appendOutput(first, task, "stderr", "é".repeat(i + 1));
      task.state = "completed";
      first.put(task);
    }
    first.close?.();
    const second = (await openStore(dir, { outputLimit: limit })).store;
    for (const [i, size] of sizes.entries()) {
      const got = second.get(`big${i}`);
      assert.equal(got?.stdout.keptBytes, size);
      assert.equal(got?.stdout.chunks()[0]?.text, "y".repeat(size));
      assert.equal(got?.stderr.chunks()[0]?.text, "é".repeat(i + 1));
      assert.equal(got?.stderr.totalBytes, 2 * (i + 1), "bytes, not characters");
    }
    second.close?.();
  });

  it("an ended task whose output came in 300 000 tiny chunks comes back completed, every chunk in order", async () => {
    const dir = tempDir();
    const limit = 8 * 1024 * 1024;
    const first = (await openStore(dir, { outputLimit: limit })).store;
    const task = record("fine", "working", 0, limit / 2);
    first.put(task);
    for (let i = 0; i < 300_000; i++) appendOutput(first, task, "stdout", "ab");
    task.state = "completed";
    first.put(task);
    first.close?.();
    const second = (await openStore(dir, { outputLimit: limit })).store;
    const got = second.get("fine");
    assert.equal(got?.state, "completed");
    const chunks = got?.stdout.chunks() ?? [];
    assert.equal(chunks.length, 300_000);
    assert.ok(
      chunks.every((chunk, i) => chunk.seq === i + 1),
      "in order",
    );
    second.close?.();
  });

  it("the database stays small while many tasks come and go: retention frees space for the new ones", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { outputLimit: 1 << 20, keptEndedBytes: 20_000 });
    for (let i = 0; i < 300; i++) {
      const task = record(`t${i}`, "working", 0, 1 << 19);
      store.put(task);
      appendOutput(store, task, "stdout", "z".repeat(1000));
      task.state = "completed";
      store.put(task);
    }
    assert.ok(store.all().length < 25, `${store.all().length} tasks kept for a 20 000-byte budget`);
    store.close?.();
    const size = statSync(join(dir, DB_FILE)).size;
    assert.ok(size < 400 * 1024, `a database of ${size} bytes for a 20 000-byte budget`);
  });

  it("80 MiB of control characters: the database holds the kept 8 MiB as it is, not an escaped copy of everything", async () => {
    const dir = tempDir();
    const limit = 8 * 1024 * 1024;
    const { store } = await openStore(dir, { outputLimit: limit });
    const task = record("controls", "working", 0, limit / 2);
    store.put(task);
    const text = "\u0001\u001b\u0007\u0000".repeat(16 * 1024);
    for (let i = 0; i < 1280; i++) {
      appendOutput(store, task, i % 2 ? "stdout" : "stderr", text);
      if (i % 16 === 0) (store as SqliteStore).flush();
    }
    task.state = "completed";
    store.put(task);
    store.close?.();
    const size = statSync(join(dir, DB_FILE)).size;
    assert.ok(size < 12 * 1024 * 1024, `a database of ${size} bytes for 8 MiB kept`);
    const { store: again } = await openStore(dir, { outputLimit: limit });
    const got = again.get("controls");
    assert.equal(got?.stdout.totalBytes, 40 * 1024 * 1024);
    assert.equal(got?.stdout.keptBytes, 4 * 1024 * 1024);
    assert.equal(got?.stdout.chunks()[0]?.text, text);
    again.close?.();
  });

  it("keeps 2 of 200 ended tasks when told to", async () => {
    const dir = tempDir();
    const { store } = await openStore(dir, { keptEnded: 2 });
    for (let i = 0; i < 200; i++) store.put(record(`t${i}`, "completed"));
    assert.deepEqual(ids(store), ["t198", "t199"]);
    store.close?.();
  });
});
