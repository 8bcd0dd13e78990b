// Push notification configs in both stores (CONTRACT 9.3): kept with their task, in order, replaced by id, deleted
// idempotently, gone when the task is evicted; in SQLite they outlive a reopen, and a row of the wrong shape is
// skipped.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PushConfigRecord } from "../../src/core/push-configs.js";
import type { TaskStore } from "../../src/core/store.js";
import { MemoryStore } from "../../src/store/memory.js";
import { editDb, openStore, taskRecord, tempDir } from "../helpers/state-dir.js";

const config = (taskId: string, id: string, url = "http://127.0.0.1:9/h"): PushConfigRecord => ({
  id,
  taskId,
  url,
  family: "1.0",
  address: "127.0.0.1",
  token: "t",
  authentication: { scheme: "Bearer", credentials: "c" },
});

function exercise(store: TaskStore): void {
  const configs = store.pushConfigs;
  assert.ok(configs);
  store.put(taskRecord("a", "working"));
  configs.putPushConfig(config("a", "1"));
  configs.putPushConfig(config("a", "2"));
  configs.putPushConfig(config("a", "1", "http://127.0.0.1:9/replaced"));
  assert.deepEqual(
    configs.pushConfigs("a").map((c) => [c.id, c.url]),
    [
      ["1", "http://127.0.0.1:9/replaced"],
      ["2", "http://127.0.0.1:9/h"],
    ],
  );
  assert.deepEqual(configs.pushConfig("a", "2"), config("a", "2"));
  assert.equal(configs.deletePushConfig("a", "2"), true);
  assert.equal(configs.deletePushConfig("a", "2"), false);
  assert.equal(configs.pushConfig("a", "2"), undefined);
}

describe("push configs in the stores", () => {
  it("memory: kept by task, replaced by id, deleted; gone with an evicted task", () => {
    const store = new MemoryStore(1);
    exercise(store);
    store.put(taskRecord("a", "completed"));
    assert.equal(store.pushConfigs.pushConfigs("a").length, 1);
    store.put(taskRecord("b", "completed"));
    assert.equal(store.get("a"), undefined);
    assert.deepEqual(store.pushConfigs.pushConfigs("a"), [], "evicted with its task");
  });

  it("SQLite: the same; they outlive a reopen, go with an evicted task, and a bad row is skipped", async () => {
    const dir = tempDir();
    let { store } = await openStore(dir, { keptEnded: 1 });
    exercise(store);
    store.put(taskRecord("a", "completed"));
    store.close?.();
    ({ store } = await openStore(dir, { keptEnded: 1 }));
    assert.deepEqual(store.pushConfigs?.pushConfig("a", "1"), config("a", "1", "http://127.0.0.1:9/replaced"));
    store.close?.();
    editDb(dir, (db) => db.prepare("UPDATE push_configs SET detail = '{\"id\":5}'").run());
    const reopened = await openStore(dir, { keptEnded: 1 });
    store = reopened.store;
    assert.deepEqual(store.pushConfigs?.pushConfigs("a"), []);
    assert.ok(reopened.lines.some((line) => /push config row of the wrong shape is skipped/.test(line)));
    store.put(taskRecord("b", "completed"));
    assert.equal(store.get("a"), undefined);
    store.close?.();
    const left = editDb(dir, (db) => db.prepare("SELECT count(*) AS n FROM push_configs").get() as { n: number });
    assert.equal(left.n, 0, "deleted with their task's row");
  });
});
