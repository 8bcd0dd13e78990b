// GetTask answers of ended tasks are kept as JSON text (src/operations/ended-task-texts.ts): the same text a fresh
// encoding gives, never for a task that can still change, and within the limits.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { TaskView } from "../../src/core/task/dispatcher.js";
import { EndedTaskTexts } from "../../src/operations/ended-task-texts.js";
import { JsonText } from "../../src/operations/json-text.js";
import { endedEcho, memoryDispatcher, methodsOver } from "../helpers/methods.js";

const view = (id: string, state: TaskView["state"], updatedAt = "t1") => ({ id, state, updatedAt }) as TaskView;

describe("EndedTaskTexts", () => {
  it("encodes a task that can still change every time, and an ended one once", () => {
    const texts = new EndedTaskTexts();
    let encoded = 0;
    const encode = () => ({ n: ++encoded });
    for (const state of ["submitted", "working", "input-required"] as const) {
      const answer = texts.answer(view("a", state), "s", encode);
      assert.ok(!(answer instanceof JsonText), state);
    }
    assert.equal(encoded, 3);
    const first = texts.answer(view("b", "completed"), "s", encode);
    assert.ok(first instanceof JsonText);
    assert.equal(texts.size, 0, "nothing is kept before the answer is written");
    assert.equal(first.text, '{"n":4}');
    const again = texts.answer(view("b", "completed"), "s", encode);
    assert.ok(again instanceof JsonText);
    assert.equal(again.text, first.text);
    assert.equal(encoded, 4);
    // Another shape, or the same task changed since (a new updatedAt), is encoded again.
    (texts.answer(view("b", "completed"), "other", encode) as JsonText).text;
    (texts.answer(view("b", "completed", "t2"), "s", encode) as JsonText).text;
    assert.equal(encoded, 6);
  });

  it("a text read again and again stays the most recent; one read after another moves behind it", () => {
    const texts = new EndedTaskTexts({ entries: 2, bytes: 1000, entryBytes: 400 });
    const written = (id: string, make: () => unknown = () => id) =>
      (texts.answer(view(id, "completed"), "s", make) as JsonText).text;
    for (const id of ["a", "b", "a", "a", "b", "b", "a", "c"]) written(id);
    let encoded = 0;
    written("a", () => ++encoded);
    assert.equal(encoded, 0, "a was read after b, so b went");
    written("b", () => ++encoded);
    assert.equal(encoded, 1);
  });

  it("keeps at most `entries` texts and `bytes` of them, the least recently read going first; a large one is not kept", () => {
    const texts = new EndedTaskTexts({ entries: 2, bytes: 1000, entryBytes: 400 });
    const written = (task: TaskView, make: () => unknown) => (texts.answer(task, "s", make) as JsonText).text;
    const encode = (size: number) => () => "x".repeat(size);
    written(view("a", "completed"), encode(10));
    written(view("b", "completed"), encode(10));
    written(view("a", "completed"), encode(10)); // read again: now the most recent
    written(view("c", "completed"), encode(10));
    assert.equal(texts.size, 2);
    let encoded = 0;
    written(view("a", "completed"), () => ++encoded);
    assert.equal(encoded, 0, "a was read last, so b went");
    written(view("big", "failed"), encode(300)); // 2 × 302 bytes > entryBytes
    assert.equal(texts.size, 2);
    written(view("d", "canceled"), encode(150));
    written(view("e", "canceled"), encode(150));
    written(view("f", "canceled"), encode(150));
    // Three of 2 × 152 bytes are over 1000: at most two stay.
    assert.ok(texts.size <= 2);
  });
});

describe("JsonText in a JSON-RPC answer", () => {
  it("is written as the JSON its text holds by a writer that does not know it", () => {
    const id = fc.oneof(fc.string(), fc.integer(), fc.constant(null));
    fc.assert(
      fc.property(id, fc.jsonValue(), (requestId, result) => {
        const text = new JsonText(JSON.stringify(result));
        const expected = JSON.stringify({ jsonrpc: "2.0", id: requestId, result: JSON.parse(text.text) });
        assert.equal(JSON.stringify({ jsonrpc: "2.0", id: requestId, result: text }), expected);
      }),
    );
  });
});

describe("GetTask and tasks/get of an ended task", () => {
  it("answer kept text equal to a fresh encoding, per family and historyLength", async () => {
    const dispatcher = memoryDispatcher();
    const task = await endedEcho(dispatcher);
    const methods = methodsOver(dispatcher);
    const call = async (method: string, params: object) => (await methods.call(method, params))?.result;
    for (const [method, params] of [
      ["GetTask", { id: task.id }],
      ["GetTask", { id: task.id, historyLength: 0 }],
      ["tasks/get", { id: task.id }],
      ["tasks/get", { id: task.id, historyLength: 0 }],
    ] as const) {
      const first = await call(method, params);
      assert.ok(first instanceof JsonText, method);
      const text = first.text;
      const second = await call(method, params);
      assert.ok(second instanceof JsonText, method);
      assert.equal(second.text, text, `${method}: the same text again`);
    }
    const full = JSON.parse(((await call("GetTask", { id: task.id })) as JsonText).text);
    const short = JSON.parse(((await call("GetTask", { id: task.id, historyLength: 0 })) as JsonText).text);
    assert.equal(full.status.state, "TASK_STATE_COMPLETED");
    assert.equal(full.history.length, 1);
    assert.equal(short.history, undefined);
    const old = JSON.parse(((await call("tasks/get", { id: task.id })) as JsonText).text);
    assert.equal(old.kind, "task");
    assert.equal(old.status.state, "completed");
  });
});
