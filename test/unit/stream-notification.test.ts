// A streaming method called as a notification (no id) has no reader: its stream is closed at once, so the task's
// output is never held back waiting for it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { A2aService } from "../../src/a2a/service.js";
import { Dispatcher } from "../../src/core/task/dispatcher.js";
import { createMethods } from "../../src/jsonrpc/methods.js";
import { createOperations } from "../../src/operations/table.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";

describe("message/stream as a notification", () => {
  it("answers nothing and does not hold the task's output: a task writing 32 MiB still completes", {
    timeout: 20_000,
  }, async () => {
    process.env.FIXTURE_BYTES = String(32 * 1024 * 1024);
    const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: FIXTURES, outputLimitBytes: 1024 * 1024 });
    const server = createMethods(
      createOperations({ service: new A2aService(dispatcher), version: "0", log: () => {} }),
    );
    const params = envelopeParams("flood");
    const response = await server.receive({ jsonrpc: "2.0", method: "message/stream", params }, { notification: true });
    assert.equal(response, null);
    const [task] = dispatcher.list();
    assert.ok(task);
    await dispatcher.settled(task.id);
    assert.equal(dispatcher.get(task.id).state, "completed");
    delete process.env.FIXTURE_BYTES;
  });
});
