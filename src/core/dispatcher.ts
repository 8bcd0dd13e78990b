// The one dispatcher behind `run` and `serve`: start, answer, cancel, get, list and one stream of events.
import { randomUUID } from "node:crypto";
import { existsSync, statSync } from "node:fs";
import { StringDecoder } from "node:string_decoder";
import { type Analysis, type Message, messageText } from "./envelope.js";
import { CoreError } from "./errors.js";
import { judgeAnswer, newPrompt } from "./hitl.js";
import { outcomeOf } from "./outcome.js";
import { type OutputChunk, OutputLog, type StreamName } from "./output-log.js";
import { type RunningCommand, spawnCommand } from "./process.js";
import { processStartTime } from "./process-identity.js";
import { PromptDetector } from "./prompt.js";
import type { TaskStore } from "./store.js";
import { MemoryStore } from "./store.js";
import { assertMove, isTerminal, type TaskState } from "./task.js";
import type { TaskRecord, TaskView } from "./task-record.js";
import { viewOf } from "./task-record.js";
import { ADAPTER_NAME, HITL_URI } from "./uris.js";
import { place } from "./workspace.js";

export type { TaskView };

export type DispatcherEvent =
  | { type: "status"; task: TaskView }
  | {
      type: "output";
      taskId: string;
      contextId: string;
      stream: StreamName;
      seq: number;
      text: string;
      /** The bytes as the command wrote them (pass-through writes these). */
      raw: Buffer;
      /** The first chunk of this stream for this task. */
      first: boolean;
    };

export type Listener = (event: DispatcherEvent) => void;

export interface DispatcherOptions {
  workspace: string;
  instanceId?: string;
  maxConcurrent?: number;
  /** Tasks that may wait in `submitted` before new ones are refused. */
  maxQueued?: number;
  /** Output a task record keeps, both streams together. */
  outputLimitBytes?: number;
  settleMs?: number;
  killGraceMs?: number;
  store?: TaskStore;
  now?: () => number;
  /** Told when a subscriber throws; the event still reaches the others. */
  onListenerError?: (error: unknown) => void;
}

export interface SubmitInput {
  analysis: Analysis;
  /** hitl-prompt/v1 activated for this request. */
  hitlActivated: boolean;
  /** `run --input-mode text-line`: text-line input even without the envelope field. */
  forceTextLine?: boolean;
  /** Activated extensions to echo on the task. */
  extensions?: string[];
}

export interface AnswerInput {
  taskId: string | undefined;
  contextId: string | undefined;
  response: unknown;
}

interface Live {
  command?: RunningCommand;
  detector?: PromptDetector;
  settleTimer?: NodeJS.Timeout;
  decoders: Record<StreamName, StringDecoder>;
  started: Record<StreamName, boolean>;
}

export const DEFAULT_OUTPUT_LIMIT = 8 * 1024 * 1024;

export class Dispatcher {
  readonly instanceId: string;
  private readonly workspace: string;
  private readonly maxConcurrent: number;
  private readonly maxQueued: number;
  private readonly outputLimit: number;
  private readonly settleMs: number | undefined;
  private readonly killGraceMs: number;
  private readonly store: TaskStore;
  private readonly now: () => number;
  private readonly onListenerError: (error: unknown) => void;
  private readonly listeners = new Set<Listener>();
  private readonly live = new Map<string, Live>();
  private readonly queue: TaskRecord[] = [];
  private readonly finished = new Map<string, Promise<void>>();
  private readonly holds = new Map<string, number>();
  private running = 0;
  private paused = false;
  private closing = false;

  constructor(options: DispatcherOptions) {
    this.workspace = options.workspace;
    this.instanceId = options.instanceId ?? randomUUID();
    this.maxConcurrent = options.maxConcurrent ?? 4;
    this.maxQueued = options.maxQueued ?? 1000;
    this.outputLimit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT;
    this.settleMs = options.settleMs;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.store = options.store ?? new MemoryStore();
    this.now = options.now ?? Date.now;
    this.onListenerError = options.onListenerError ?? (() => {});
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Validates and creates a task; it starts on the next turn of the event loop, or waits for a free slot. */
  submit(input: SubmitInput): TaskView {
    if (this.closing) throw new CoreError("shutting_down", "the dispatcher is shutting down");
    const { analysis } = input;
    if (!analysis.valid) throw rejected(analysis.errors, analysis.dispatch);
    if (this.queue.length >= this.maxQueued) {
      throw new CoreError("busy", `too many tasks waiting (${this.maxQueued}); try again when some have ended`);
    }
    const message = analysis.message;
    const id = randomUUID();
    const contextId = message?.contextId ?? randomUUID();
    const record: TaskRecord = {
      id,
      contextId,
      instanceId: this.instanceId,
      dispatch: analysis.dispatch,
      state: "submitted",
      updatedAt: this.iso(),
      createdAt: this.iso(),
      exitCode: null,
      signal: null,
      textLine: false,
      extensions: input.extensions ?? [],
      messageText: messageText(message),
      ...(message ? { message } : {}),
      stdout: new OutputLog(this.outputLimit / 2),
      stderr: new OutputLog(this.outputLimit / 2),
      seq: 0,
      revision: 0,
    };
    if (analysis.dispatch === "adapter-command") {
      const { envelope, envelopePath } = analysis;
      const placed = place(this.workspace, envelope, envelopePath);
      if (!placed.ok) throw rejected(placed.errors, "adapter-command");
      const wantsTextLine = envelope.input_mode === "text-line" || input.forceTextLine === true;
      if (envelope.input_mode === "text-line" && !input.hitlActivated && !input.forceTextLine) {
        throw rejected(
          [
            {
              path: `${envelopePath}/input_mode`,
              code: "hitl_not_activated",
              message: `expected hitl-prompt/v1 to be activated for input_mode "text-line", found it not activated (add ${HITL_URI} to A2A-Extensions)`,
            },
          ],
          "adapter-command",
        );
      }
      record.envelope = envelope;
      record.placement = placed.placement;
      record.textLine = wantsTextLine;
      record.timeoutSeconds = envelope.timeout_seconds;
    }
    this.store.put(record);
    this.emitStatus(record);
    let done!: () => void;
    this.finished.set(id, new Promise<void>((resolve) => (done = resolve)));
    record.onEnd = done;
    this.queue.push(record);
    setImmediate(() => this.pump());
    return viewOf(record);
  }

  get(id: string, withOutput = true): TaskView {
    const record = this.store.get(id);
    if (!record) throw notFound(id);
    return viewOf(record, withOutput);
  }

  list(): TaskView[] {
    return this.store.all().map((record) => viewOf(record, false));
  }

  /** Resolves once the task has ended (immediately for an ended or unknown one). */
  async settled(id: string): Promise<void> {
    await this.finished.get(id);
  }

  /** Resolves with the task once `accept` holds for it (checked now and at every status change). */
  until(id: string, accept: (task: TaskView) => boolean): Promise<TaskView> {
    const current = this.get(id, false);
    if (accept(current)) return Promise.resolve(this.get(id));
    return new Promise((resolve) => {
      const off = this.subscribe((event) => {
        if (event.type === "status" && event.task.id === id && accept(event.task)) {
          off();
          // The store may already have let an ended task go; the event still has it.
          const record = this.store.get(id);
          resolve(record ? viewOf(record) : event.task);
        }
      });
    });
  }

  cancel(id: string): TaskView {
    const record = this.store.get(id);
    if (!record) throw notFound(id);
    if (isTerminal(record.state)) {
      throw new CoreError("task_not_cancelable", `task ${id} has already ended (${record.state})`, {
        task_id: id,
        state: record.state,
      });
    }
    const live = this.live.get(id);
    if (live?.command) {
      // Too late is too late: a command that has exited or hit its deadline ends as it did, not as canceled.
      if (!live.command.stop("cancel")) {
        const why = live.command.running ? "it hit its deadline" : "its command has exited";
        throw new CoreError("task_not_cancelable", `task ${id} is already ending: ${why}`, {
          task_id: id,
          state: record.state,
        });
      }
      return viewOf(record, false);
    }
    const queued = this.queue.indexOf(record);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.end(record, "canceled", { reason: "canceled", text: "canceled before it started" });
    return viewOf(record, false);
  }

  /**
   * For front ends stopping their task (Ctrl-C, a lost terminal): cancels it if that still changes anything. A task
   * that has ended, or is already ending (past its deadline, or its command exited), is left to end as it does.
   */
  cancelIfRunning(id: string): void {
    try {
      if (!isTerminal(this.get(id, false).state)) this.cancel(id);
    } catch (error) {
      if (!(error instanceof CoreError && error.code === "task_not_cancelable")) throw error;
    }
  }

  /** Delivers an answer to the exact running command that asked (CONTRACT section 4). */
  async answer(input: AnswerInput): Promise<TaskView> {
    const record = input.taskId ? this.store.get(input.taskId) : undefined;
    const live = record ? this.live.get(record.id) : undefined;
    const target = record
      ? {
          // A command being canceled is no longer bound to its prompt (past the deadline: deadline_passed).
          liveBinding:
            !!live?.command?.acceptsInput &&
            live.command.stopReason !== "cancel" &&
            record.textLine &&
            !isTerminal(record.state),
          contextId: record.contextId,
          openPrompt: record.prompt,
        }
      : undefined;
    const verdict = judgeAnswer(input.response, input.contextId, target, this.now());
    if (!verdict.ok) {
      const promptId = verdict.promptId ? { prompt_id: verdict.promptId } : {};
      if (verdict.code === "task_not_found") throw notFound(input.taskId ?? "(none)");
      if (verdict.code === "hitl_invalid") {
        throw new CoreError("hitl_invalid", "hitl_response_invalid", {
          ...promptId,
          validation_errors: verdict.validationErrors ?? [],
        });
      }
      throw new CoreError("hitl_unknown", "hitl_already_answered_or_unknown", {
        ...promptId,
        ...(verdict.reason ? { reason: verdict.reason } : {}),
      });
    }
    // Claim: synchronous, so of concurrent answers exactly one gets here.
    const task = record as TaskRecord;
    const { command, detector } = live as Live;
    const prompt = verdict.prompt;
    task.prompt = undefined;
    detector?.reset();
    this.move(task, "working");
    const claimed = task.revision;
    try {
      await (command as RunningCommand).write(`${verdict.text}\n`);
    } catch {
      if (task.revision === claimed && !isTerminal(task.state)) {
        task.prompt = prompt;
        this.move(task, "input-required");
      }
      throw new CoreError("hitl_unknown", "hitl_already_answered_or_unknown", {
        prompt_id: prompt.id,
        reason: "delivery_failed",
      });
    }
    return viewOf(task);
  }

  /** Closes the command's stdin (no more answers will come); ended or unknown tasks are left as they are. */
  endInput(id: string): void {
    this.live.get(id)?.command?.endInput();
  }

  /** Stops reading children's output (a consumer is not keeping up); `resumeOutput` goes on. */
  pauseOutput(): void {
    if (this.paused) return;
    this.paused = true;
    for (const [id, live] of this.live) this.applyFlow(id, live);
  }

  resumeOutput(): void {
    if (!this.paused) return;
    this.paused = false;
    for (const [id, live] of this.live) this.applyFlow(id, live);
  }

  /** Stops reading one task's output (now, or from its start) until `releaseOutput`: for a follower that can't send its events yet. */
  holdOutput(id: string): void {
    this.holds.set(id, (this.holds.get(id) ?? 0) + 1);
    const live = this.live.get(id);
    if (live) this.applyFlow(id, live);
  }

  releaseOutput(id: string): void {
    const count = this.holds.get(id);
    if (count === undefined) return;
    if (count > 1) this.holds.set(id, count - 1);
    else this.holds.delete(id);
    const live = this.live.get(id);
    if (live) this.applyFlow(id, live);
  }

  private applyFlow(id: string, live: Live): void {
    if (this.paused || this.holds.has(id)) live.command?.pause();
    else live.command?.resume();
  }

  /** Refuses new tasks, cancels the rest and waits until every command has ended. */
  async shutdown(): Promise<void> {
    this.closing = true;
    for (const record of this.queue.splice(0))
      this.end(record, "canceled", { reason: "shutdown", text: "canceled: the runtime shut down" });
    for (const live of this.live.values()) live.command?.stop("cancel");
    this.resumeOutput();
    await Promise.all([...this.finished.values()]);
  }

  /** Last resort on the way out: SIGKILL to every command's group. */
  killAll(): void {
    for (const live of this.live.values()) live.command?.kill();
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const record = this.queue.shift() as TaskRecord;
      this.running += 1;
      if (record.dispatch === "echo") this.runEcho(record);
      else this.runCommand(record);
    }
  }

  private runEcho(record: TaskRecord): void {
    this.move(record, "working", { startedAt: this.iso() });
    const live = this.newLive();
    this.live.set(record.id, live);
    const raw = Buffer.from(`${record.messageText}\n`);
    this.output(record, live, "stdout", raw);
    this.end(record, "completed", { exitCode: 0, reason: "exit", text: "completed: echoed the message" });
  }

  private runCommand(record: TaskRecord): void {
    const envelope = record.envelope as NonNullable<TaskRecord["envelope"]>;
    const startedAt = this.now();
    const deadline = startedAt + envelope.timeout_seconds * 1000;
    this.move(record, "working", {
      startedAt: new Date(startedAt).toISOString(),
      deadline: new Date(deadline).toISOString(),
    });
    const infra = (text: string) =>
      this.end(record, "failed", { failKind: "infrastructure", reason: "spawn_failed", text });
    // Checked again now, not only at submit: a task may have waited while someone changed the workspace.
    let placed: ReturnType<typeof place>;
    try {
      placed = place(this.workspace, envelope, "");
    } catch (error) {
      infra(`failed: the workspace changed while the task waited: ${(error as Error).message}`);
      return;
    }
    if (!placed.ok) {
      infra(`failed: the workspace changed while the task waited: ${placed.errors.map((e) => e.message).join("; ")}`);
      return;
    }
    const { placement } = placed;
    record.placement = placement;
    if (!isDirectory(placement.workingDir)) {
      infra(`failed: the working directory ${placement.workingDir} does not exist`);
      return;
    }
    if (!existsSync(placement.runnerPath)) {
      infra(`failed: no runner at ${placement.runnerPath}`);
      return;
    }

    const live = this.newLive();
    if (record.textLine)
      live.detector = new PromptDetector(this.settleMs === undefined ? {} : { settleMs: this.settleMs });
    this.live.set(record.id, live);
    let command: RunningCommand;
    try {
      command = spawnCommand(
        {
          executable: process.execPath,
          args: [placement.runnerPath, "--request", envelope.command[3]],
          cwd: placement.workingDir,
          env: {
            ...process.env,
            AIWG_A2A_ADAPTER: ADAPTER_NAME,
            AIWG_A2A_ADAPTER_MODE: envelope.mode,
            AIWG_A2A_MESSAGE: record.messageText,
            AIWG_A2A_TASK_ID: record.id,
            AIWG_A2A_INSTANCE_ID: this.instanceId,
            AIWG_MISSION_ID: record.id,
          },
          stdin: record.textLine,
          timeoutMs: Math.max(0, deadline - this.now()),
          killGraceMs: this.killGraceMs,
        },
        {
          onChunk: (stream, chunk) => this.output(record, live, stream, chunk),
          onStreamEnd: (stream) => this.flush(record, live, stream),
        },
      );
    } catch (error) {
      infra(`failed: could not start the runner: ${(error as Error).message}`);
      return;
    }
    live.command = command;
    if (command.pid !== undefined) {
      record.pid = command.pid;
      const started = processStartTime(command.pid);
      if (started !== undefined) record.pidStart = started;
    }
    this.store.put(record);
    this.applyFlow(record.id, live);
    command.done.then((exit) => {
      clearTimeout(live.settleTimer);
      for (const stream of ["stdout", "stderr"] as const) this.flush(record, live, stream);
      const { state, ...outcome } = outcomeOf(exit, envelope.timeout_seconds);
      this.end(record, state, outcome);
    });
  }

  private newLive(): Live {
    return {
      decoders: { stdout: new StringDecoder("utf8"), stderr: new StringDecoder("utf8") },
      started: { stdout: false, stderr: false },
    };
  }

  private output(record: TaskRecord, live: Live, stream: StreamName, raw: Buffer): void {
    this.emitText(record, live, stream, live.decoders[stream].write(raw), raw);
  }

  private flush(record: TaskRecord, live: Live, stream: StreamName): void {
    const rest = live.decoders[stream].end();
    if (rest !== "") this.emitText(record, live, stream, rest, Buffer.alloc(0));
  }

  private emitText(record: TaskRecord, live: Live, stream: StreamName, text: string, raw: Buffer): void {
    const seq = text === "" ? record.seq : ++record.seq;
    if (text !== "") {
      const chunk: OutputChunk = { seq, stream, text, bytes: Buffer.byteLength(text) };
      record[stream].append(chunk);
    }
    const first = !live.started[stream] && text !== "";
    if (first) live.started[stream] = true;
    this.emit({ type: "output", taskId: record.id, contextId: record.contextId, stream, seq, text, raw, first });
    if (live.detector && text !== "") this.watchForPrompt(record, live, text);
  }

  private watchForPrompt(record: TaskRecord, live: Live, text: string): void {
    const detector = live.detector as PromptDetector;
    detector.feed(text, this.now());
    if (record.prompt) {
      // Output resumed: the open prompt is withdrawn and answers to it are stale.
      record.prompt = undefined;
      this.move(record, "working");
    }
    clearTimeout(live.settleTimer);
    // Timers run on the event loop's cached clock and may fire a little early: check, and wait out the rest.
    const check = () => {
      const wait = detector.quietInMs(this.now());
      if (wait > 0) {
        live.settleTimer = setTimeout(check, wait);
        return;
      }
      const line = detector.due(this.now());
      const command = live.command;
      const deadline = Date.parse(record.deadline as string);
      // A command past its deadline, or being stopped, can no longer be answered: its prompt is not raised.
      const answerable = command?.running && command.stopReason === null && this.now() < deadline;
      if (line === undefined || record.state !== "working" || !answerable) return;
      record.prompt = newPrompt(line, new Date(deadline));
      this.move(record, "input-required");
    };
    live.settleTimer = setTimeout(check, detector.settleMs);
  }

  private end(
    record: TaskRecord,
    state: Extract<TaskState, "completed" | "failed" | "canceled">,
    outcome: {
      text: string;
      reason: NonNullable<TaskRecord["reason"]>;
      failKind?: TaskRecord["failKind"];
      exitCode?: number | null;
      signal?: string | null;
    },
  ): void {
    if (isTerminal(record.state)) return;
    const live = this.live.get(record.id);
    if (live) clearTimeout(live.settleTimer);
    record.prompt = undefined;
    record.exitCode = outcome.exitCode ?? null;
    record.signal = outcome.signal ?? null;
    record.reason = outcome.reason;
    if (outcome.failKind) record.failKind = outcome.failKind;
    record.endedAt = this.iso();
    record.statusText = outcome.text;
    const wasRunning = record.state !== "submitted";
    this.move(record, state);
    this.live.delete(record.id);
    this.holds.delete(record.id);
    if (wasRunning) {
      this.running -= 1;
      setImmediate(() => this.pump());
    }
    record.onEnd?.();
    this.finished.delete(record.id);
  }

  private move(
    record: TaskRecord,
    to: TaskState,
    fields: Partial<Pick<TaskRecord, "startedAt" | "deadline">> = {},
  ): void {
    assertMove(record.state, to);
    Object.assign(record, fields);
    record.state = to;
    record.updatedAt = this.iso();
    record.revision += 1;
    this.store.put(record);
    this.emitStatus(record);
  }

  private emitStatus(record: TaskRecord): void {
    this.emit({ type: "status", task: viewOf(record, false) });
  }

  private emit(event: DispatcherEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        // One front end's fault must not stop the task or the other front ends.
        this.onListenerError(error);
      }
    }
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function notFound(id: string): CoreError {
  return new CoreError("task_not_found", `task not found: ${id}`, { task_id: id });
}

function rejected(errors: Array<{ path: string; code: string; message: string }>, dispatch?: string): CoreError {
  const first = errors[0];
  const what = dispatch === "echo" ? "message" : "adapter-command/v1";
  const summary = first ? `${first.message}${first.path ? ` at ${first.path}` : ""}` : "invalid input";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  return new CoreError("envelope_rejected", `${what} rejected: ${summary}${more}`, { errors });
}

export type { Message };
