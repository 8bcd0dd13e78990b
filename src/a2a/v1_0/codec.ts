// Core records → A2A 1.0 wire objects (ProtoJSON: camelCase, enum names, no `kind`): Task, Message, StreamResponse.

import type { DispatcherEvent } from "../../core/task/events.js";
import type { StreamName } from "../../core/task/output-log.js";
import type { TaskState } from "../../core/task/task.js";
import type { StreamView, TaskView } from "../../core/task/task-record.js";
import { type HistoryEntry, historyOf } from "../history.js";
import type { TaskOptions } from "../requests.js";
import { statusMessageOf } from "../status-message.js";
import { eventMetadata, metadataOf } from "../task-metadata.js";
import type { TaskShape } from "../task-shape.js";
import { type Part1, wireMessage10 } from "./message.js";

export type { Part1 };

export const STATE_NAMES: Record<TaskState, string> = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELED",
};

export interface Message1 {
  messageId: string;
  role: "ROLE_USER" | "ROLE_AGENT";
  parts: Part1[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export interface Status1 {
  state: string;
  timestamp: string;
  message?: Message1;
}

export interface Artifact1 {
  artifactId: StreamName;
  name: StreamName;
  parts: Array<{ text: string; metadata: { seq: number } }>;
  metadata?: { total_bytes: number; dropped_bytes: number };
}

export type Task1 = TaskShape<Status1, Artifact1, Message1>;

export type StreamResponse1 =
  | { task: Task1 }
  | { statusUpdate: { taskId: string; contextId: string; status: Status1; metadata?: Record<string, unknown> } }
  | {
      artifactUpdate: { taskId: string; contextId: string; artifact: Artifact1; append: boolean; lastChunk: boolean };
    };

function taskStatusOf(task: TaskView): Status1 {
  const status: Status1 = { state: STATE_NAMES[task.state], timestamp: task.updatedAt };
  const said = statusMessageOf(task);
  if (said)
    status.message = {
      messageId: said.messageId,
      role: "ROLE_AGENT",
      parts: [{ text: said.text }],
      taskId: task.id,
      contextId: task.contextId,
      ...said.hitl,
    };
  return status;
}

function artifactOf(stream: StreamName, view: StreamView): Artifact1 {
  return {
    artifactId: stream,
    name: stream,
    parts: view.chunks.map((chunk) => ({ text: chunk.text, metadata: { seq: chunk.seq } })),
    metadata: { total_bytes: view.totalBytes, dropped_bytes: view.droppedBytes },
  };
}

export function taskOf(task: TaskView, options: TaskOptions = {}): Task1 {
  const wire: Task1 = {
    id: task.id,
    contextId: task.contextId,
    status: taskStatusOf(task),
    metadata: metadataOf(task),
  };
  const output = task.output;
  if (output && options.includeArtifacts !== false) {
    wire.artifacts = (["stdout", "stderr"] as const)
      .filter((stream) => output[stream].totalBytes > 0)
      .map((stream) => artifactOf(stream, output[stream]));
  }
  const history = historyOf(task, options.historyLength);
  if (history.length > 0) wire.history = history.map((entry) => historyMessage(task, entry));
  return wire;
}

/** A message of the task's history in 1.0 shape: only the fields the proto defines. */
function historyMessage(task: TaskView, { message, messageId }: HistoryEntry): Message1 {
  const { role, parts, ...rest } = wireMessage10(message);
  return { messageId, role, parts, contextId: task.contextId, taskId: task.id, ...rest };
}

/** A dispatcher event as a 1.0 StreamResponse; undefined for output with no text. */
export function streamResponseOf(event: DispatcherEvent): StreamResponse1 | undefined {
  if (event.type === "status") {
    const { task } = event;
    return {
      statusUpdate: { taskId: task.id, contextId: task.contextId, status: taskStatusOf(task), ...eventMetadata(task) },
    };
  }
  if (event.data.length === 0) return undefined;
  return {
    artifactUpdate: {
      taskId: event.taskId,
      contextId: event.contextId,
      artifact: {
        artifactId: event.stream,
        name: event.stream,
        parts: [{ text: event.text, metadata: { seq: event.seq } }],
      },
      append: !event.first,
      lastChunk: false,
    },
  };
}
