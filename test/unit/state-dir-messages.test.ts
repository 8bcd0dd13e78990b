// A state dir written before schema version 5 keeps its messages in the shape the core had then (parts tagged by
// `kind`): it still opens, and its tasks read, and are written on both wires, exactly as before
// (src/store/stored-message.ts). The old rows are written directly, as that version wrote them.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import * as v03 from "../../src/a2a/v0_3/codec.js";
import * as v10 from "../../src/a2a/v1_0/codec.js";
import { viewOf } from "../../src/core/task/task-record.js";
import { SCHEMA_VERSION } from "../../src/store/schema.js";
import { editDb, openStore, taskRecord, tempDir } from "../helpers/state-dir.js";

/** A request and an answer as rows before version 5 hold them: as the core read them then, fields as sent. */
const OLD_MESSAGE = {
  kind: "message",
  role: "user",
  messageId: "m-1",
  metadata: { k: "v" },
  referenceTaskIds: ["t-0"],
  parts: [
    { kind: "text", text: "hello" },
    { kind: "file", file: { uri: "https://example.com/a.csv", name: "a.csv", mimeType: "text/csv" } },
    { kind: "data", data: { a: 1 }, metadata: { m: 1 } },
    { kind: "text", text: "plain", mediaType: "text/plain" },
  ],
};
const OLD_ANSWER = { role: "user", messageId: "a-1", parts: [{ kind: "text", text: "y" }] };

/** A state dir as the version before wrote it: one ended task whose detail holds the old messages. */
async function oldStateDir(): Promise<string> {
  const dir = tempDir();
  const { store } = await openStore(dir);
  const task = taskRecord("old", "completed");
  task.message = { role: "user", parts: [{ type: "text", text: "hello" }] };
  task.messageText = "hello\nplain";
  store.put(task);
  store.close?.();
  editDb(dir, (db) => {
    const { detail } = db.prepare("SELECT detail FROM tasks WHERE id = 'old'").get() as { detail: string };
    const old = { ...JSON.parse(detail), message: OLD_MESSAGE, answers: [OLD_ANSWER] };
    db.prepare("UPDATE tasks SET detail = ? WHERE id = 'old'").run(JSON.stringify(old));
    db.pragma("user_version = 4");
  });
  return dir;
}

describe("a state dir of schema version 4", () => {
  it("opens, is brought to the current version, and its task reads and is written on both wires as before", async () => {
    const dir = await oldStateDir();
    const { store, lines } = await openStore(dir);
    assert.ok(!lines.some((line) => /skipped|cannot/.test(line)), lines.join("\n"));
    // Read twice: the second read of a row this run has checked is only parsed (src/store/checked-rows.ts).
    for (let read = 0; read < 2; read++) {
      const record = store.get("old");
      assert.ok(record);
      assert.equal(record.messageText, "hello\nplain");
      const view = viewOf(record);
      const task03 = v03.taskOf(view);
      assert.deepEqual(task03.history, [
        { ...OLD_MESSAGE, taskId: "old", contextId: "ctx" },
        { kind: "message", ...OLD_ANSWER, taskId: "old", contextId: "ctx" },
      ]);
      assert.deepEqual(v10.taskOf(view).history, [
        {
          messageId: "m-1",
          role: "ROLE_USER",
          metadata: { k: "v" },
          parts: [
            { text: "hello" },
            { url: "https://example.com/a.csv", filename: "a.csv", mediaType: "text/csv" },
            { data: { a: 1 }, metadata: { m: 1 } },
            { text: "plain", mediaType: "text/plain" },
          ],
          contextId: "ctx",
          taskId: "old",
        },
        { messageId: "a-1", role: "ROLE_USER", parts: [{ text: "y" }], contextId: "ctx", taskId: "old" },
      ]);
    }
    store.close?.();
    assert.equal(
      editDb(dir, (db) => db.pragma("user_version", { simple: true })),
      SCHEMA_VERSION,
    );
  });

  it("a task written again is kept in the core's shape, and reads the same", async () => {
    const dir = await oldStateDir();
    const first = await openStore(dir);
    const record = first.store.get("old");
    assert.ok(record);
    first.store.put(record);
    first.store.close?.();
    const stored = editDb(dir, (db) => db.prepare("SELECT detail FROM tasks WHERE id = 'old'").get()) as {
      detail: string;
    };
    assert.deepEqual(JSON.parse(stored.detail).message.parts[0], { type: "text", text: "hello" });
    const again = await openStore(dir);
    assert.deepEqual(again.store.get("old")?.message, record.message);
    assert.deepEqual(again.store.get("old")?.answers, record.answers);
    again.store.close?.();
  });

  it("is brought to version 5, which the version before (4) refuses to open: it could not read the new rows", async () => {
    const dir = await oldStateDir();
    (await openStore(dir)).store.close?.();
    assert.equal(
      editDb(dir, (db) => db.pragma("user_version", { simple: true })),
      5,
    );
  });
});
