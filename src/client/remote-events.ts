// A remote task's A2A 1.0 StreamResponses turned into the dispatcher events the screen, the plain pass-through and
// --json take (src/ui), so a served task is shown exactly as a local one. Pure: no I/O. Output parts carry
// `metadata.seq` (CONTRACT 5.4, shared by stdout and stderr): a part whose seq was already shown is skipped, so a
// resumed stream (its Task, then the events after it: CONTRACT 9.4) shows every chunk once.
import { type Message, type StreamResponse, type Task, TaskState as WireState } from "@a2a-js/sdk";
import type { OpenPrompt } from "../core/hitl/hitl.js";
import { printable } from "../core/printable.js";
import { SgrOnly } from "../core/sgr-only.js";
import type { DispatcherEvent } from "../core/task/events.js";
import type { StreamName } from "../core/task/output-log.js";
import type { EndReason, FailKind, TaskState } from "../core/task/task.js";
import type { TaskView } from "../core/task/task-record.js";
import { ADAPTER_URI, HITL_URI } from "../core/uris.js";

const STATES: Partial<Record<WireState, TaskState>> = {
  [WireState.TASK_STATE_SUBMITTED]: "submitted",
  [WireState.TASK_STATE_WORKING]: "working",
  [WireState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [WireState.TASK_STATE_COMPLETED]: "completed",
  [WireState.TASK_STATE_FAILED]: "failed",
  [WireState.TASK_STATE_CANCELED]: "canceled",
  // Not states of ours: a runtime that rejects or wants auth has ended the task for this client.
  [WireState.TASK_STATE_REJECTED]: "failed",
  [WireState.TASK_STATE_AUTH_REQUIRED]: "failed",
};

export function stateOf(state: WireState | undefined): TaskState {
  return (state !== undefined && STATES[state]) || "submitted";
}

type Metadata = Record<string, unknown> | undefined;
const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** The text of a message's text parts, joined. */
export function textOf(message: Message | undefined): string {
  return (message?.parts ?? [])
    .map((part) => (part.content?.$case === "text" ? part.content.value : ""))
    .filter((text) => text !== "")
    .join("\n");
}

/** The prompt a status message opens (CONTRACT section 4: metadata[HITL].prompt_id), if it is one. */
export function promptOf(message: Message | undefined): OpenPrompt | undefined {
  const hitl = record(message?.metadata?.[HITL_URI]);
  const id = str(hitl.prompt_id);
  if (!id) return undefined;
  const responders = Array.isArray(hitl.allowed_responders) ? hitl.allowed_responders.filter((r) => str(r)) : [];
  return {
    id,
    text: str(hitl.prompt) ?? textOf(message),
    deadline: str(hitl.deadline) ?? "",
    allowedResponders: responders.length > 0 ? (responders as string[]) : ["any"],
  };
}

/**
 * How the server's data is shown (docs/security.md, "The client"): for a person, every word of the server's (ids,
 * prompt, status text, signal…) has its control characters escaped; output bound for a terminal keeps its colours
 * and loses every other escape (src/core/sgr-only.ts). `--json` takes the data as it came, and escapes it as JSON.
 */
export interface ModelOptions {
  escapeWords?: boolean;
  terminal?: Partial<Record<StreamName, boolean>>;
}

/** What the stream has said of the task so far, and which output it has shown. */
export class RemoteTaskModel {
  private current: TaskView | undefined;
  private readonly word: (text: string) => string;
  private readonly filters: Partial<Record<StreamName, SgrOnly>> = {};

  constructor(options: ModelOptions = {}) {
    this.word = options.escapeWords ? printable : (text) => text;
    for (const stream of ["stdout", "stderr"] as const)
      if (options.terminal?.[stream]) this.filters[stream] = new SgrOnly();
  }
  /** The highest output seq shown: seqs only grow, so this is all the dedup needs (bounded). */
  private lastSeq = 0;
  private readonly started: Record<StreamName, boolean> = { stdout: false, stderr: false };

  get task(): TaskView | undefined {
    return this.current;
  }

  get shownSeq(): number {
    return this.lastSeq;
  }

  /** The events one StreamResponse (or a Task from GetTask) adds, in order. */
  take(item: StreamResponse): DispatcherEvent[] {
    const payload = item.payload;
    if (!payload) return [];
    if (payload.$case === "task") return this.takeTask(payload.value);
    if (payload.$case === "statusUpdate") {
      const { status, metadata } = payload.value;
      return this.status(payload.value.taskId, payload.value.contextId, status?.state, status?.message, metadata, {
        timestamp: status?.timestamp,
      });
    }
    if (payload.$case === "artifactUpdate") {
      const { artifact, taskId, contextId } = payload.value;
      if (!artifact) return [];
      return this.output(taskId, contextId, artifact.artifactId, artifact.parts);
    }
    return [];
  }

  takeTask(task: Task): DispatcherEvent[] {
    const events = this.status(task.id, task.contextId, task.status?.state, task.status?.message, task.metadata, {
      timestamp: task.status?.timestamp,
      whole: task,
    });
    // The Task's output in the order it was written (seq across both artifacts), then what it has not shown yet.
    const parts = task.artifacts.flatMap((artifact) =>
      artifact.parts.map((part) => ({ artifactId: artifact.artifactId, part })),
    );
    parts.sort((a, b) => seqOf(a.part.metadata) - seqOf(b.part.metadata));
    const output = parts.flatMap(({ artifactId, part }) => this.output(task.id, task.contextId, artifactId, [part]));
    // A Task that has ended is told after its output, as a local run tells its end.
    const state = events[0]?.type === "status" ? events[0].task.state : undefined;
    return state && ["completed", "failed", "canceled"].includes(state)
      ? [...output, ...events]
      : [...events, ...output];
  }

  private output(
    taskId: string,
    contextId: string,
    artifactId: string,
    parts: Task["artifacts"][number]["parts"],
  ): DispatcherEvent[] {
    if (artifactId !== "stdout" && artifactId !== "stderr") return [];
    const stream: StreamName = artifactId;
    const events: DispatcherEvent[] = [];
    taskId = this.word(taskId);
    contextId = this.word(contextId);
    for (const part of parts) {
      if (part.content?.$case !== "text") continue;
      const seq = seqOf(part.metadata);
      // A part without a seq cannot be told apart from one shown before a resume: it is shown (a foreign runtime).
      if (seq !== 0 && seq <= this.lastSeq) continue;
      if (seq !== 0) this.lastSeq = seq;
      const filter = this.filters[stream];
      const text = filter ? filter.feed(part.content.value) : part.content.value;
      const raw = Buffer.from(text, "utf8");
      const first = !this.started[stream];
      this.started[stream] = true;
      events.push({ type: "output", taskId, contextId, stream, seq: seq || this.lastSeq, text, data: raw, raw, first });
    }
    return events;
  }

  private status(
    id: string,
    contextId: string,
    wire: WireState | undefined,
    message: Message | undefined,
    metadata: Metadata,
    extra: { timestamp?: string | undefined; whole?: Task },
  ): DispatcherEvent[] {
    id = this.word(id);
    contextId = this.word(contextId);
    const state = stateOf(wire);
    const before = this.current?.id === id ? this.current : undefined;
    const adapter = { ...record(extra.whole?.metadata?.[ADAPTER_URI]), ...record(metadata?.[ADAPTER_URI]) };
    const now = this.word(extra.timestamp ?? new Date().toISOString());
    const view: TaskView = {
      ...(before ?? {
        id,
        contextId,
        instanceId: this.word(str(record(extra.whole?.metadata)["runtime.instance_id"]) ?? ""),
        dispatch: "adapter-command",
        createdAt: now,
        exitCode: null,
        signal: null,
        textLine: false,
        extensions: [],
        lastEvent: 0,
      }),
      state,
      updatedAt: now,
    };
    applyAdapter(view, adapter, this.word);
    if (state === "submitted" || state === "working") view.startedAt ??= now;
    const prompt = state === "input-required" ? promptOf(message) : undefined;
    if (prompt)
      view.prompt = {
        id: this.word(prompt.id),
        text: this.word(prompt.text),
        deadline: this.word(prompt.deadline),
        allowedResponders: prompt.allowedResponders.map(this.word),
      };
    else delete view.prompt;
    if (["completed", "failed", "canceled"].includes(state)) {
      view.endedAt ??= now;
      const words = textOf(message);
      if (words) view.statusText = this.word(words);
    }
    this.current = view;
    // A resumed stream starts with the Task as it is: the same state and prompt again is no news (and must not
    // open the same prompt twice for the answers).
    if (before && before.state === view.state && before.prompt?.id === view.prompt?.id) return [];
    return [{ type: "status", task: view }];
  }

  /** An answer was taken: the prompt is closed at once, as the dispatcher closes it (CONTRACT section 4). */
  answered(): DispatcherEvent[] {
    const task = this.current;
    if (task?.state !== "input-required") return [];
    const { prompt: _closed, ...rest } = task;
    this.current = { ...rest, state: "working", updatedAt: new Date().toISOString() };
    return [{ type: "status", task: this.current }];
  }
}

/** metadata[ADAPTER] (CONTRACT 5.4): what a status event or a Task says of the command. */
function applyAdapter(view: TaskView, adapter: Record<string, unknown>, word: (text: string) => string): void {
  const str = (value: unknown) => (typeof value === "string" ? word(value) : undefined);
  if (typeof adapter.exit_code === "number") view.exitCode = adapter.exit_code;
  if (typeof adapter.signal === "string") view.signal = word(adapter.signal);
  const failKind = str(adapter.fail_kind);
  if (failKind) view.failKind = failKind as FailKind;
  const reason = str(adapter.reason);
  if (reason) view.reason = reason as EndReason;
  if (typeof adapter.timeout_seconds === "number") view.timeoutSeconds = adapter.timeout_seconds;
  const started = str(adapter.started_at);
  if (started) view.startedAt = started;
  const ended = str(adapter.ended_at);
  if (ended) view.endedAt = ended;
  const workingDir = str(adapter.working_dir);
  if (workingDir) view.workingDir = workingDir;
  const deadline = str(adapter.deadline);
  if (deadline) view.deadline = deadline;
  if (typeof adapter.pid === "number") view.pid = adapter.pid;
}

function seqOf(metadata: Metadata): number {
  const seq = metadata?.seq;
  return typeof seq === "number" && Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
}
