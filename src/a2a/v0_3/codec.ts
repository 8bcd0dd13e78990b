// Core records → A2A 0.3 wire objects (Task, events). Shared by the 0.3 methods of every binding and `run --json`.

import type { DispatcherEvent } from "../../core/task/dispatcher.js";
import type { StreamName } from "../../core/task/output-log.js";
import { isTerminal } from "../../core/task/task.js";
import type { StreamView, TaskView } from "../../core/task/task-record.js";
import { historyOf } from "../history.js";
import type { TaskOptions } from "../requests.js";
import { statusMessageOf } from "../status-message.js";
import { eventMetadata, metadataOf } from "../task-metadata.js";
import type { TaskShape } from "../task-shape.js";
import { wireMessage03 } from "./message.js";

export interface WireTextPart {
  kind: "text";
  text: string;
  metadata?: Record<string, unknown>;
}

export interface WireMessage {
  kind: "message";
  messageId: string;
  role: "agent" | "user";
  parts: WireTextPart[];
  taskId?: string;
  contextId?: string;
  metadata?: Record<string, unknown>;
  extensions?: string[];
}

export interface WireStatus {
  state: TaskView["state"];
  timestamp: string;
  message?: WireMessage;
  fail_kind?: "application" | "infrastructure";
}

export interface WireArtifact {
  artifactId: StreamName;
  name: StreamName;
  parts: WireTextPart[];
  metadata?: Record<string, unknown>;
}

export interface WireTask extends TaskShape<WireStatus, WireArtifact, unknown> {
  kind: "task";
}

export type WireEvent =
  | {
      kind: "status-update";
      taskId: string;
      contextId: string;
      status: WireStatus;
      final: boolean;
      metadata?: Record<string, unknown>;
    }
  | {
      kind: "artifact-update";
      taskId: string;
      contextId: string;
      artifact: WireArtifact;
      append: boolean;
      lastChunk: boolean;
    };

function taskStatusOf(task: TaskView): WireStatus {
  const status: WireStatus = { state: task.state, timestamp: task.updatedAt };
  const said = statusMessageOf(task);
  if (said)
    status.message = {
      kind: "message",
      messageId: said.messageId,
      role: "agent",
      parts: [{ kind: "text", text: said.text }],
      taskId: task.id,
      contextId: task.contextId,
      ...said.hitl,
    };
  if (task.state === "failed" && task.failKind) status.fail_kind = task.failKind;
  return status;
}

function artifactOf(stream: StreamName, view: StreamView): WireArtifact {
  return {
    artifactId: stream,
    name: stream,
    parts: view.chunks.map((chunk) => ({ kind: "text", text: chunk.text, metadata: { seq: chunk.seq } })),
    metadata: { total_bytes: view.totalBytes, dropped_bytes: view.droppedBytes },
  };
}

export function taskOf(task: TaskView, options: TaskOptions = {}): WireTask {
  const wire: WireTask = {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: taskStatusOf(task),
    metadata: metadataOf(task),
  };
  if (task.output && options.includeArtifacts !== false) {
    wire.artifacts = (["stdout", "stderr"] as const)
      .filter((stream) => (task.output as NonNullable<TaskView["output"]>)[stream].totalBytes > 0)
      .map((stream) => artifactOf(stream, (task.output as NonNullable<TaskView["output"]>)[stream]));
  }
  const history = historyOf(task, options.historyLength);
  if (history.length > 0)
    wire.history = history.map(({ message, messageId }) => ({
      kind: "message",
      ...wireMessage03(message),
      messageId,
      taskId: task.id,
      contextId: task.contextId,
    }));
  return wire;
}

/** A dispatcher event as the A2A 0.3 event it is on the wire; undefined for output with no text. */
export function eventOf(event: DispatcherEvent): WireEvent | undefined {
  if (event.type === "status") {
    return {
      kind: "status-update",
      taskId: event.task.id,
      contextId: event.task.contextId,
      status: taskStatusOf(event.task),
      final: isTerminal(event.task.state),
      ...eventMetadata(event.task),
    };
  }
  if (event.data.length === 0) return undefined;
  return {
    kind: "artifact-update",
    taskId: event.taskId,
    contextId: event.contextId,
    artifact: {
      artifactId: event.stream,
      name: event.stream,
      parts: [{ kind: "text", text: event.text, metadata: { seq: event.seq } }],
    },
    append: !event.first,
    lastChunk: false,
  };
}
