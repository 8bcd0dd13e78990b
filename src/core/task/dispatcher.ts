// The front door of the core: admission, the queue and each task's lifecycle, behind start/answer/cancel/get/list.
import { randomUUID } from "node:crypto";
import { type Containment, sharedContainment } from "../containment/containment.js";
import type { GuardKind } from "../containment/guard.js";
import type { Analysis, Message } from "../envelope/envelope.js";
import type { MessageSeen } from "../envelope/message.js";
import { placementProblems } from "../envelope/workspace.js";
import { CoreError, rejected, taskNotFound } from "../errors.js";
import { historyMessageOf, MAX_ANSWERS_KEPT } from "../hitl/answer-message.js";
import { judgeAnswer, refusalOf } from "../hitl/hitl.js";
import type { TaskStore } from "../store.js";
import { Emitter, type Listener } from "./events.js";
import { admitCommand, prepareLaunch } from "./launch.js";
import type { ListPage, ListQuery } from "./list-query.js";
import { ENDS, type Outcome, outcomeOf } from "./outcome.js";
import { OutputFlow } from "./output-flow.js";
import { spawnCommand } from "./process.js";
import { isTerminal } from "./task.js";
import type { TaskView } from "./task-record.js";
import { newTaskRecord, viewOf } from "./task-record.js";
import { TaskRun } from "./task-run.js";

export type { DispatcherEvent, Listener } from "./events.js";
export type { Message, TaskView };

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
  /** Where records live: passed in by the composition root (the core knows no store but its interface). */
  store: TaskStore;
  now?: () => number;
  /** The one function that starts processes (src/core/task/process.ts); tests may hand in another. */
  spawn?: typeof spawnCommand;
  /** The guard and the watchdog (src/core/containment/); by default the one this machine gets, shared. */
  containment?: Containment;
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
  /** The message that carries the answer, as its codec read it: kept in the task's history. */
  message?: MessageSeen;
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
  private readonly spawn: typeof spawnCommand;
  private readonly containment: Containment;
  private readonly emitter: Emitter;
  /** Tasks that have not ended, queued or running. */
  private readonly runs = new Map<string, TaskRun>();
  private readonly queue: TaskRun[] = [];
  private readonly flow = new OutputFlow((id) => this.runs.get(id));
  private running = 0;
  private closing = false;
  /** Set once no answer can come any more (CONTRACT 5.5, stdin EOF); the tasks it canceled for that. */
  private inputClosed = false;
  private readonly canceledForInput = new Set<string>();

  constructor(options: DispatcherOptions) {
    this.workspace = options.workspace;
    this.instanceId = options.instanceId ?? randomUUID();
    this.maxConcurrent = options.maxConcurrent ?? 4;
    this.maxQueued = options.maxQueued ?? 1000;
    this.outputLimit = options.outputLimitBytes ?? DEFAULT_OUTPUT_LIMIT;
    this.settleMs = options.settleMs;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.store = options.store;
    this.now = options.now ?? Date.now;
    this.spawn = options.spawn ?? spawnCommand;
    this.containment = options.containment ?? sharedContainment();
    this.emitter = new Emitter(options.onListenerError);
  }

  /** Which guard contains the tasks' processes (CONTRACT 3.2: `run` and `serve` say it at start). */
  get containmentKind(): GuardKind {
    return this.containment.guard.kind;
  }

  subscribe(listener: Listener): () => void {
    return this.emitter.subscribe(listener);
  }

  /** Validates and creates a task; it starts on the next turn of the event loop, or waits for a free slot. */
  submit(input: SubmitInput): TaskView {
    if (this.closing) throw new CoreError("shutting_down", "the dispatcher is shutting down");
    const { analysis } = input;
    if (!analysis.valid) {
      // The workspace's checks run on a refused envelope too: every problem is told at once.
      const { errors, refused } = analysis;
      throw rejected(
        refused ? [...errors, ...placementProblems(this.workspace, refused, errors)] : errors,
        analysis.dispatch,
      );
    }
    if (this.queue.length >= this.maxQueued) {
      throw new CoreError("busy", `too many tasks waiting (${this.maxQueued}); try again when some have ended`, {
        reason: "queue_full",
      });
    }
    const record = newTaskRecord({
      message: analysis.message,
      dispatch: analysis.dispatch,
      extensions: input.extensions ?? [],
      instanceId: this.instanceId,
      at: this.iso(),
      outputLimit: this.outputLimit,
    });
    if (analysis.dispatch === "adapter-command") admitCommand(record, analysis, this.workspace, input);
    const run = new TaskRun(record, { store: this.store, emitter: this.emitter, now: this.now });
    this.store.put(record);
    run.emitStatus();
    this.runs.set(record.id, run);
    this.queue.push(run);
    setImmediate(() => this.pump());
    return viewOf(record);
  }

  get(id: string, withOutput = true): TaskView {
    const record = this.store.get(id, withOutput);
    if (!record) throw taskNotFound(id);
    return viewOf(record, withOutput);
  }

  /** Every task the store keeps, without output. */
  list(): TaskView[] {
    return this.store.all(false).map((record) => viewOf(record, false));
  }

  /** ListTasks: one page of the tasks that match (src/core/task/list-query.ts). */
  listPage(query: ListQuery, withOutput = false): ListPage<TaskView> {
    const page = this.store.list(query, withOutput);
    return { ...page, items: page.items.map((record) => viewOf(record, withOutput)) };
  }

  /** Resolves once the task has ended (immediately for an ended or unknown one). */
  async settled(id: string): Promise<void> {
    await this.runs.get(id)?.ended;
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
    const record = this.store.get(id, false);
    if (!record) throw taskNotFound(id);
    const run = this.runs.get(id);
    if (!run || isTerminal(record.state)) {
      throw new CoreError("task_not_cancelable", `task ${id} has already ended (${record.state})`, {
        task_id: id,
        state: record.state,
      });
    }
    if (run.command) {
      // Too late is too late: a command that has exited or hit its deadline ends as it did, not as canceled.
      if (!run.command.stop("cancel")) {
        const why = run.command.running ? "it hit its deadline" : "its command has exited";
        throw new CoreError("task_not_cancelable", `task ${id} is already ending: ${why}`, {
          task_id: id,
          state: record.state,
        });
      }
      return viewOf(record, false);
    }
    const queued = this.queue.indexOf(run);
    if (queued >= 0) this.queue.splice(queued, 1);
    this.end(run, ENDS.canceledBeforeStart());
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
    const record = input.taskId ? this.store.get(input.taskId, false) : undefined;
    const run = record ? this.runs.get(record.id) : undefined;
    const target = record
      ? { liveBinding: run?.liveBinding ?? false, contextId: record.contextId, openPrompt: record.prompt }
      : undefined;
    const verdict = judgeAnswer(input.response, input.contextId, target, this.now());
    if (!verdict.ok) throw refusalOf(verdict, input.taskId);
    const live = run as TaskRun;
    const answers = live.record.answers ?? [];
    // Kept before the claim, whose state change stores the record with it.
    live.record.answers = [...answers, historyMessageOf(input.message, verdict.text)].slice(-MAX_ANSWERS_KEPT);
    const { prompt, revision } = live.claimPrompt();
    try {
      await (live.command as NonNullable<TaskRun["command"]>).write(`${verdict.text}\n`);
    } catch {
      live.record.answers = answers;
      live.reopen(prompt, revision);
      throw new CoreError("hitl_unknown", "hitl_already_answered_or_unknown", {
        prompt_id: prompt.id,
        reason: "delivery_failed",
      });
    }
    return viewOf(live.record);
  }

  /** Closes the command's stdin (no more answers will come); ended or unknown tasks are left as they are. */
  endInput(id: string): void {
    this.runs.get(id)?.command?.endInput();
  }

  /** Stops reading children's output (a consumer is not keeping up); `resumeOutput` goes on. */
  pauseOutput(): void {
    this.flow.pauseAll();
  }

  resumeOutput(): void {
    this.flow.resumeAll();
  }

  /** Stops reading one task's output (now, or from its start) until `releaseOutput`: for a follower that can't send its events yet. */
  holdOutput(id: string): void {
    this.flow.hold(id);
  }

  releaseOutput(id: string): void {
    this.flow.release(id);
  }

  /**
   * No answer can come any more (the end of `serve --stdio`'s input, CONTRACT 5.5): a task waiting for one is
   * canceled (reason input_closed), and so is one that asks later; the others run to their end. Resolves once no
   * task is left.
   */
  async closeInput(): Promise<void> {
    if (!this.inputClosed) {
      this.inputClosed = true;
      this.subscribe((event) => {
        if (event.type === "status" && event.task.state === "input-required") this.cancelForInput(event.task.id);
      });
      for (const run of this.runs.values()) if (run.record.state === "input-required") this.cancelForInput(run.id);
    }
    while (this.runs.size > 0) await Promise.all([...this.runs.values()].map((run) => run.ended));
  }

  private cancelForInput(id: string): void {
    const command = this.runs.get(id)?.command;
    // A command already stopping (a cancel, its deadline) ends for that reason.
    if (command && command.stopReason === null && command.stop("cancel")) this.canceledForInput.add(id);
  }

  /** Refuses new tasks, cancels the rest and waits until every command has ended. */
  async shutdown(): Promise<void> {
    this.closing = true;
    for (const run of this.queue.splice(0)) this.end(run, ENDS.shutdown());
    for (const run of this.runs.values()) run.command?.stop("cancel");
    this.resumeOutput();
    await Promise.all([...this.runs.values()].map((run) => run.ended));
  }

  /** Last resort on the way out: SIGKILL to every command's group and the rest of its task. */
  killAll(): void {
    for (const run of this.runs.values()) run.command?.kill();
  }

  private pump(): void {
    while (this.running < this.maxConcurrent && this.queue.length > 0) {
      const run = this.queue.shift() as TaskRun;
      this.running += 1;
      if (run.record.dispatch === "echo") this.runEcho(run);
      else this.runCommand(run);
    }
  }

  private runEcho(run: TaskRun): void {
    run.move("working", { startedAt: this.iso() });
    run.output("stdout", Buffer.from(`${run.record.messageText}\n`));
    this.end(run, ENDS.echoed());
  }

  private runCommand(run: TaskRun): void {
    const { record } = run;
    const startedAt = this.now();
    const deadline = startedAt + (record.timeoutSeconds as number) * 1000;
    const times = { startedAt: new Date(startedAt).toISOString(), deadline: new Date(deadline).toISOString() };
    const prepared = prepareLaunch(this.workspace, record);
    if (!prepared.ok) {
      run.move("working", times);
      this.end(run, prepared.outcome);
      return;
    }
    record.placement = prepared.placement;
    record.startedAt = times.startedAt;
    record.deadline = times.deadline;
    if (record.textLine) run.watchForPrompts(this.settleMs);
    try {
      run.command = this.spawn(
        { ...prepared.spec, timeoutMs: Math.max(0, deadline - this.now()), killGraceMs: this.killGraceMs },
        { onChunk: (stream, chunk) => run.output(stream, chunk), onStreamEnd: (stream) => run.flush(stream) },
        this.containment,
      );
    } catch (error) {
      run.move("working", times);
      this.end(run, ENDS.spawnFailed((error as Error).message));
      return;
    }
    const command = run.command;
    // The working status carries the running pid; output can only arrive on a later turn of the event loop.
    const { pid, pidStart } = command;
    run.move("working", {
      ...times,
      guard: command.guard,
      ...(pid === undefined ? {} : { pid }),
      ...(pidStart === undefined ? {} : { pidStart }),
    });
    this.flow.apply(run);
    command.done.then((exit) => {
      run.stopWatching();
      for (const stream of ["stdout", "stderr"] as const) run.flush(stream);
      const forInput = this.canceledForInput.delete(run.id) && exit.stoppedBy === "cancel";
      this.end(run, forInput ? ENDS.inputClosed(exit) : outcomeOf(exit, record.timeoutSeconds as number));
    });
  }

  private end(run: TaskRun, outcome: Outcome): void {
    const wasRunning = run.record.state !== "submitted";
    if (!run.end(outcome)) return;
    this.runs.delete(run.id);
    this.flow.forget(run.id);
    if (wasRunning) {
      this.running -= 1;
      setImmediate(() => this.pump());
    }
  }

  private iso(): string {
    return new Date(this.now()).toISOString();
  }
}
