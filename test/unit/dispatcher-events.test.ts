// The dispatcher's event stream: one faulty subscriber neither stops a task nor the other subscribers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { Dispatcher, type DispatcherEvent } from "../../src/core/task/dispatcher.js";
import { MemoryStore } from "../../src/store/memory.js";

const echo = { role: "user", parts: [{ kind: "text", text: "hello" }] };

describe("Dispatcher events", () => {
  it("a subscriber that throws is reported; the task ends and others hear every event", async () => {
    const errors: unknown[] = [];
    const dispatcher = new Dispatcher({
      store: new MemoryStore(),
      workspace: process.cwd(),
      onListenerError: (error) => errors.push(error),
    });
    const seen: DispatcherEvent[] = [];
    dispatcher.subscribe(() => {
      throw new Error("broken front end");
    });
    dispatcher.subscribe((event) => seen.push(event));
    const task = dispatcher.submit({ analysis: analyzeInput(echo), hitlActivated: false });
    await dispatcher.settled(task.id);
    assert.equal(dispatcher.get(task.id).state, "completed");
    const states = seen.flatMap((event) => (event.type === "status" ? [event.task.state] : []));
    assert.deepEqual(states, ["submitted", "working", "completed"]);
    assert.ok(seen.some((event) => event.type === "output" && event.text === "hello\n"));
    assert.equal(errors.length, seen.length, "every throw was reported");
  });
});
