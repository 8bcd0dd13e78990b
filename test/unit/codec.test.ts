// The A2A 0.3 codec: wire shapes from task views.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { taskOf } from "../../src/a2a/v0_3/codec.js";
import type { TaskView } from "../../src/core/task/task-record.js";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { taskView } from "../helpers/events.js";

const view = (overrides: Partial<TaskView> = {}): TaskView =>
  taskView({
    dispatch: "echo",
    state: "completed",
    exitCode: 0,
    message: { role: "user", parts: [{ type: "text", text: "hi" }] },
    ...overrides,
  });

describe("taskOf", () => {
  it("gives the request in history a messageId when the sender left it out", () => {
    const [request] = taskOf(view()).history as Array<Record<string, unknown>>;
    assert.equal(request?.messageId, "task-1-request");
    assert.equal(request?.kind, "message");
    assert.equal(request?.taskId, "task-1");
  });
  it("keeps the sender's messageId", () => {
    const [request] = taskOf(view({ message: { role: "user", messageId: "m1", parts: [] } })).history as Array<
      Record<string, unknown>
    >;
    assert.equal(request?.messageId, "m1");
  });
  it("historyLength 0 leaves history out", () => {
    assert.equal(taskOf(view(), { historyLength: 0 }).history, undefined);
  });
  it("names the instance that ran the task", () => {
    const metadata = taskOf(view()).metadata[ADAPTER_URI] as Record<string, unknown>;
    assert.equal(metadata.instance_id, "instance-1");
  });
});
