// The task record the dispatcher keeps, and the read-only views it hands out (copies, never the record itself).

import { randomUUID } from "node:crypto";
import type { GuardRecord } from "../containment/guard.js";
import { type Envelope, type Message, messageText } from "../envelope/envelope.js";
import type { Placement } from "../envelope/workspace.js";
import type { OpenPrompt } from "../hitl/hitl.js";
import { type OutputChunk, OutputLog } from "./output-log.js";
import type { EndReason, FailKind, TaskState } from "./task.js";

export interface TaskRecord {
  id: string;
  contextId: string;
  /** The runtime instance that ran it. */
  instanceId: string;
  dispatch: "adapter-command" | "echo";
  state: TaskState;
  /** What happened, in words, once the task has ended. */
  statusText?: string;
  updatedAt: string;
  createdAt: string;
  startedAt?: string;
  endedAt?: string;
  deadline?: string;
  failKind?: FailKind;
  reason?: EndReason;
  exitCode: number | null;
  signal: string | null;
  envelope?: Envelope;
  placement?: Placement;
  timeoutSeconds?: number;
  textLine: boolean;
  prompt?: OpenPrompt | undefined;
  extensions: string[];
  message?: Message;
  /** Answers to its prompts, in the order they were accepted: the task's history after `message` (CONTRACT 4). */
  answers?: Message[];
  messageText: string;
  stdout: OutputLog;
  stderr: OutputLog;
  /** The last sequence number given out, shared by both streams. */
  seq: number;
  /**
   * Status events told so far. With `seq` (one output event per number) it numbers the task's events from 1, status
   * and output together: the SSE `id:` of CONTRACT 9.4.
   */
  statusEvents: number;
  /** Counts every state change: a failed delivery reopens a prompt only if nothing moved since the claim. */
  revision: number;
  pid?: number;
  /** The leader's start time, so a later run can tell it is still the same process. */
  pidStart?: string;
  /** How the containment guard finds the task's processes beyond its group (set when it starts; CONTRACT 3.2). */
  guard?: GuardRecord;
}

export interface StreamView {
  chunks: OutputChunk[];
  totalBytes: number;
  droppedBytes: number;
}

/** What a view shares with the record, as it is. */
type Shared =
  | "id"
  | "contextId"
  | "instanceId"
  | "dispatch"
  | "state"
  | "statusText"
  | "updatedAt"
  | "createdAt"
  | "startedAt"
  | "endedAt"
  | "deadline"
  | "failKind"
  | "reason"
  | "exitCode"
  | "signal"
  | "envelope"
  | "timeoutSeconds"
  | "textLine"
  | "extensions"
  | "message"
  | "answers"
  | "pid";

export type TaskView = Pick<TaskRecord, Shared> & {
  /** The number of the task's last event (CONTRACT 9.4): what this view already includes. */
  lastEvent: number;
  prompt?: OpenPrompt;
  workingDir?: string;
  output?: { stdout: StreamView; stderr: StreamView };
};

export function viewOf(record: TaskRecord, withOutput = true): TaskView {
  const view: TaskView = {
    id: record.id,
    contextId: record.contextId,
    instanceId: record.instanceId,
    dispatch: record.dispatch,
    state: record.state,
    updatedAt: record.updatedAt,
    createdAt: record.createdAt,
    exitCode: record.exitCode,
    signal: record.signal,
    textLine: record.textLine,
    extensions: [...record.extensions],
    lastEvent: lastEventOf(record),
  };
  if (record.statusText !== undefined) view.statusText = record.statusText;
  if (record.startedAt !== undefined) view.startedAt = record.startedAt;
  if (record.endedAt !== undefined) view.endedAt = record.endedAt;
  if (record.deadline !== undefined) view.deadline = record.deadline;
  if (record.failKind !== undefined) view.failKind = record.failKind;
  if (record.reason !== undefined) view.reason = record.reason;
  if (record.envelope !== undefined) view.envelope = record.envelope;
  if (record.placement !== undefined) view.workingDir = record.placement.workingDir;
  if (record.timeoutSeconds !== undefined) view.timeoutSeconds = record.timeoutSeconds;
  if (record.prompt) view.prompt = { ...record.prompt, allowedResponders: [...record.prompt.allowedResponders] };
  if (record.message !== undefined) view.message = record.message;
  if (record.answers !== undefined && record.answers.length > 0) view.answers = [...record.answers];
  if (record.pid !== undefined) view.pid = record.pid;
  if (withOutput) view.output = { stdout: streamView(record.stdout), stderr: streamView(record.stderr) };
  return view;
}

/** The number of the record's last event: its status events and its output events (one per `seq`). */
export function lastEventOf(record: Pick<TaskRecord, "statusEvents" | "seq">): number {
  return record.statusEvents + record.seq;
}

function streamView(log: OutputLog): StreamView {
  return { chunks: log.chunks(), totalBytes: log.totalBytes, droppedBytes: log.droppedBytes };
}

/** A new task in `submitted`, keeping at most `outputLimit` bytes of output, half a stream. */
export function newTaskRecord(fields: {
  message: Message | undefined;
  dispatch: TaskRecord["dispatch"];
  extensions: string[];
  instanceId: string;
  at: string;
  outputLimit: number;
}): TaskRecord {
  const { message, at } = fields;
  return {
    id: randomUUID(),
    contextId: message?.contextId ?? randomUUID(),
    instanceId: fields.instanceId,
    dispatch: fields.dispatch,
    state: "submitted",
    updatedAt: at,
    createdAt: at,
    exitCode: null,
    signal: null,
    textLine: false,
    extensions: fields.extensions,
    messageText: messageText(message),
    ...(message ? { message } : {}),
    stdout: new OutputLog(fields.outputLimit / 2),
    stderr: new OutputLog(fields.outputLimit / 2),
    seq: 0,
    // `submitted`, told as the task is made.
    statusEvents: 1,
    revision: 0,
  };
}
