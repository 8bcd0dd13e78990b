// Dispatcher events built by hand, for the pure front-end parts.

import type { Envelope } from "../../src/core/envelope/envelope.js";
import type { DispatcherEvent } from "../../src/core/task/dispatcher.js";
import type { StreamName } from "../../src/core/task/output-log.js";
import type { TaskView } from "../../src/core/task/task-record.js";

let seq = 0;

/** An output event of task-1; `first` marks the first chunk of its stream. */
export function output(text: string, stream: StreamName = "stdout", first = false): DispatcherEvent {
  seq += 1;
  return {
    type: "output",
    taskId: "task-1",
    contextId: "ctx-1",
    stream,
    seq,
    text,
    data: Buffer.from(text),
    raw: Buffer.from(text),
    first,
  };
}

/** A task view of task-1 with the required fields filled in; `overrides` set the rest. */
export function taskView(overrides: Partial<TaskView> = {}): TaskView {
  return {
    id: "task-1",
    contextId: "ctx-1",
    instanceId: "instance-1",
    dispatch: "adapter-command",
    state: "working",
    updatedAt: "2025-01-01T00:00:01.000Z",
    createdAt: "2025-01-01T00:00:00.000Z",
    exitCode: null,
    signal: null,
    textLine: false,
    extensions: [],
    lastEvent: 1,
    ...overrides,
  };
}

/** The request of the example that asks for confirmation, and its envelope, as the screen tests show them. */
export const ASSESS_REQUEST = ".aiwg/ops/runs/assess-confirm.json";
export const ASSESS_ENVELOPE: Envelope = {
  adapter: "sandbox-agent-runner",
  mode: "assess",
  command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ASSESS_REQUEST],
  working_dir: "/workspace",
  timeout_seconds: 120,
  input_mode: "text-line",
};
