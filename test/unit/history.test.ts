// A task's history (src/a2a/history.ts): the request, then the answers in the order accepted, cut to the most recent
// `historyLength` (A2A 1.0 §3.2.4); the answer as the history keeps it (src/core/hitl/answer-message.ts), also across a
// restart of a state dir.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { historyOf } from "../../src/a2a/history.js";
import { readMessage03 } from "../../src/a2a/v0_3/message.js";
import { historyMessageOf } from "../../src/core/hitl/answer-message.js";
import type { TaskView } from "../../src/core/task/task-record.js";
import { openStore, taskRecord as record, tempDir } from "../helpers/state-dir.js";

const text = (value: string) => ({ type: "text" as const, text: value });
const read = (message: unknown) => readMessage03(message, "/message").seen;

function taskWith(answers: number): TaskView {
  return {
    id: "t1",
    contextId: "c1",
    message: { role: "user", parts: [text("request")], messageId: "m0" },
    answers: Array.from({ length: answers }, (_, i) => ({ role: "user" as const, parts: [text(`answer ${i + 1}`)] })),
  } as unknown as TaskView;
}

describe("historyOf", () => {
  it("the request, then the answers in order; ids for messages sent without one", () => {
    const entries = historyOf(taskWith(2), undefined);
    assert.deepEqual(
      entries.map((entry) => [entry.messageId, entry.message.parts[0]]),
      [
        ["m0", text("request")],
        ["t1-answer-1", text("answer 1")],
        ["t1-answer-2", text("answer 2")],
      ],
    );
  });

  it("historyLength N keeps the N most recent; 0 none; no limit or a negative one, all (by property)", () => {
    fc.assert(
      fc.property(fc.nat(20), fc.option(fc.integer({ min: -3, max: 30 }), { nil: undefined }), (answers, length) => {
        const all = historyOf(taskWith(answers), undefined);
        const kept = historyOf(taskWith(answers), length);
        if (length === 0) assert.deepEqual(kept, []);
        else if (length === undefined || length < 0) assert.deepEqual(kept, all);
        else assert.deepEqual(kept, all.slice(Math.max(0, all.length - length)));
      }),
    );
  });
});

describe("historyMessageOf", () => {
  it("keeps the answer as sent: its parts, messageId, metadata and extensions", () => {
    const sent = {
      role: "user" as const,
      messageId: "a1",
      parts: [text("y")],
      metadata: { hitl_response_for: { prompt_id: "p", payload: { text: "y" } } },
      extensions: ["https://example.com/x"],
      contextId: "c1",
    };
    const kept = historyMessageOf(sent, "y");
    assert.deepEqual(kept, {
      role: "user",
      messageId: "a1",
      parts: [text("y")],
      metadata: sent.metadata,
      extensions: sent.extensions,
    });
  });

  it("a part it cannot read back is left out; with none left, the answer's text stands in", () => {
    const ok = { kind: "text", text: "ok" };
    assert.deepEqual(historyMessageOf(read({ role: "user", parts: [{ nonsense: 1 }, ok] }), "t").parts, [text("ok")]);
    assert.deepEqual(historyMessageOf(read({ role: "user", parts: [{}] }), "the text").parts, [text("the text")]);
    assert.deepEqual(historyMessageOf(undefined, "x"), { role: "user", parts: [text("x")] });
  });
});

describe("a state dir keeps the answers", () => {
  it("a task's answers come back after a restart, in order", async () => {
    const dir = tempDir();
    const first = await openStore(dir);
    const task = record("asked", "working");
    task.answers = [
      historyMessageOf({ role: "user" as const, parts: [text("one")] }, "one"),
      historyMessageOf({}, "two"),
    ];
    first.store.put(task);
    task.state = "completed";
    first.store.put(task);
    first.store.close?.();
    const again = await openStore(dir);
    assert.deepEqual(again.store.get("asked")?.answers, task.answers);
    again.store.close?.();
  });
});
