// Follows one task on a server and plays the part of the dispatcher for the front ends (src/ui/live-task.ts): its
// events come from the stream, answers go out as hitl-prompt/v1 responses (CONTRACT section 4), Ctrl-C cancels it
// on the server. A stream that drops before the task ended is resumed with SubscribeToTask (CONTRACT 9.4): the
// Task as it is now, then the events after it; output already shown is skipped by its seq (remote-events.ts).
import { randomUUID } from "node:crypto";
import {
  CancelTaskRequest,
  GetTaskRequest,
  type Message,
  SendMessageRequest,
  type StreamResponse,
  SubscribeToTaskRequest,
} from "@a2a-js/sdk";
import { CoreError } from "../core/errors.js";
import { printable } from "../core/printable.js";
import type { DispatcherEvent, Listener } from "../core/task/events.js";
import { Emitter } from "../core/task/events.js";
import { isTerminal } from "../core/task/task.js";
import type { TaskView } from "../core/task/task-record.js";
import { ADAPTER_URI } from "../core/uris.js";
import type { LiveTask } from "../ui/live-task.js";
import type { Runs } from "../ui/scrollback.js";
import type { Connection } from "./connect.js";
import { ClientFailure } from "./failures.js";
import { FollowLimit } from "./follow-limit.js";
import { type ModelOptions, RemoteTaskModel } from "./remote-events.js";
import { answerIn, fetchAnswer, requestOf, runsOf } from "./task-facts.js";

/**
 * Resuming gives up after this many attempts in a row that brought nothing new (no new event, and the stream broke
 * within RESUME_WINDOW_MS: a Task and then an oversized line is no progress), or this long without a working stream.
 */
export const RESUME_ATTEMPTS = 5;
export const RESUME_WINDOW_MS = 15_000;
const RESUME_PAUSE_MS = 250;

export interface Outbound {
  envelope: unknown;
  text: string;
}

export class RemoteTask implements LiveTask {
  private readonly model: RemoteTaskModel;
  private readonly limit = new FollowLimit(Date.now());
  private limitTimer: NodeJS.Timeout | undefined;
  private readonly emitter = new Emitter();
  private readonly abort = new AbortController();
  private ended: (() => void) | undefined;
  private readonly end = new Promise<void>((resolve) => {
    this.ended = resolve;
  });
  /** Why following stopped short of the task's end, in words. */
  failure: string | undefined;
  private lastView: TaskView | undefined;
  /** Resumes done so far (for `--verbose` and tests). */
  resumes = 0;
  /** What the header names (src/client/task-facts.ts), from the first Task the server sent. */
  runs: Runs | undefined;
  request: string | undefined;
  /** The prompt this client answers or answered: its closing is no news from elsewhere. */
  private ownAnswer: string | undefined;
  private readonly answeredElsewhere = new Set<(answer: { prompt: string; text: string }) => void>();

  constructor(
    private readonly connection: Connection,
    private readonly say: (line: string) => void = () => {},
    shown: ModelOptions = {},
  ) {
    this.model = new RemoteTaskModel(shown);
    this.armLimit();
  }

  /** Sends the envelope with SendStreamingMessage; resolves with the task once the server has it. */
  async start(outbound: Outbound): Promise<TaskView> {
    const metadata: Record<string, unknown> = { [ADAPTER_URI]: outbound.envelope };
    const request = SendMessageRequest.fromJSON({
      message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: outbound.text }], metadata },
    });
    const stream = this.connection.client.sendMessageStream(request, this.callOptions());
    return this.begin(stream);
  }

  /** Follows a task that already runs (`tasks watch`): SubscribeToTask, or its end from GetTask. */
  async watch(taskId: string): Promise<TaskView> {
    return this.begin(this.subscribeOrGet(taskId));
  }

  /** Reads the first item of `stream`; the rest is followed in the background. */
  private async begin(stream: AsyncGenerator<StreamResponse>): Promise<TaskView> {
    let first: IteratorResult<StreamResponse>;
    try {
      first = await stream.next();
    } catch (error) {
      throw this.connection.failure(error);
    }
    if (first.done || !first.value.payload)
      throw new ClientFailure("infrastructure", `${this.connection.origin} sent no task`);
    if (first.value.payload.$case === "task") {
      this.runs = runsOf(first.value.payload.value);
      this.request = requestOf(first.value.payload.value);
    }
    this.feed(first.value);
    const task = this.model.task;
    if (!task)
      throw new ClientFailure("infrastructure", `${this.connection.origin} answered with a message, not a task`);
    void this.follow(task.id, stream);
    return task;
  }

  private async *subscribeOrGet(taskId: string): AsyncGenerator<StreamResponse> {
    const { client } = this.connection;
    try {
      yield* client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: taskId }), this.callOptions());
    } catch (error) {
      // An ended task cannot be subscribed to (-32004): GetTask has its end (CONTRACT 9.4).
      const failure = this.connection.failure(error);
      if (failure.kind !== "refused") throw error;
      const task = await client.getTask(GetTaskRequest.fromJSON({ id: taskId }), this.callOptions());
      if (!isTerminal(this.model.task?.state ?? "submitted") || this.model.task?.id !== task.id)
        yield { payload: { $case: "task", value: task } };
      if (!task.status || !isTerminalWire(task)) throw error;
    }
  }

  private async follow(taskId: string, first: AsyncGenerator<StreamResponse>): Promise<void> {
    let stream = first;
    /** Resumes in a row that brought nothing new, and when the first of them began. */
    let fruitless = 0;
    let brokeAt = Date.now();
    for (;;) {
      const opened = Date.now();
      let news = false;
      let broke: ClientFailure | undefined;
      try {
        for await (const item of stream) {
          if (await this.feedAndTell(item)) news = true;
          if (this.over) break;
        }
        if (this.over) return this.finish();
      } catch (error) {
        if (this.abort.signal.aborted || this.over) return this.finish();
        broke = this.connection.failure(error);
        if (broke.kind === "usage" || broke.kind === "rejected") return this.lose(broke.message);
      }
      // A SendStreamingMessage stream ends when the task asks (CONTRACT 7.3): SubscribeToTask follows on. A stream
      // that ended or broke having brought nothing new counts against resuming, so no server keeps us resubscribing.
      const why = broke?.message ?? "the stream ended before the task did";
      const lost = why.startsWith("lost ") ? why : `lost ${this.connection.origin}: ${why}`;
      if (news || Date.now() - opened >= RESUME_WINDOW_MS) {
        fruitless = 0;
        brokeAt = Date.now();
      }
      if (fruitless >= RESUME_ATTEMPTS)
        return this.lose(`${lost} (gave up after ${RESUME_ATTEMPTS} attempts to resume that brought nothing new)`);
      if (Date.now() - brokeAt > RESUME_WINDOW_MS)
        return this.lose(`${lost} (gave up after ${RESUME_WINDOW_MS / 1000} s without a working stream)`);
      if (fruitless > 0 || broke) {
        this.say(`the stream broke (${why}): resuming (attempt ${fruitless + 1} of ${RESUME_ATTEMPTS})`);
        // A short pause between attempts, so a server that restarts has a moment (bounded by the limits above).
        await new Promise((resolve) => setTimeout(resolve, RESUME_PAUSE_MS * (fruitless + 1)));
      }
      fruitless += 1;
      this.resumes += 1;
      stream = this.subscribeOrGet(taskId);
    }
  }

  private get over(): boolean {
    return this.lastView !== undefined || isTerminal(this.model.task?.state ?? "submitted");
  }

  /** Shows what `item` adds; true when it added anything (progress, for resuming). */
  private feed(item: StreamResponse): boolean {
    const events = this.model.take(item);
    for (const event of events) this.emit(event);
    if (this.limit.seen(this.model.task, Date.now())) this.armLimit();
    return events.length > 0;
  }

  /** Following stops at the task's deadline plus a grace, whatever the stream still sends (follow-limit.ts). */
  private armLimit(): void {
    clearTimeout(this.limitTimer);
    this.limitTimer = setTimeout(
      () => this.lose(this.limit.words(this.connection.origin, this.model.task)),
      Math.max(0, this.limit.until - Date.now()),
    );
    this.limitTimer.unref();
  }

  /**
   * Feeds one item; when it closes a prompt this client did not answer, finds with what it was answered elsewhere
   * (`tasks answer`, the console) and tells it before the next item, where a local screen shows its own answer.
   * True when the item added anything (progress, for resuming).
   */
  private async feedAndTell(item: StreamResponse): Promise<boolean> {
    const task = this.model.task;
    const open = task?.state === "input-required" ? task.prompt : undefined;
    const added = this.feed(item);
    const now = this.model.task;
    if (!open || !now || open.id === this.ownAnswer || (now.state === "input-required" && now.prompt?.id === open.id))
      return added;
    if (this.answeredElsewhere.size === 0) return added;
    const history = item.payload?.$case === "task" ? item.payload.value.history : [];
    const text = answerIn(history, open.id) ?? (await fetchAnswer(this.connection, now.id, open.id, this.abort.signal));
    if (text === undefined) return added;
    // Both come from the server: shown as data, escapes made visible, and bounded (docs/reference.md, "A runtime
    // at a URL").
    const answer = { prompt: shortText(open.text), text: shortText(text) };
    for (const listener of this.answeredElsewhere) listener(answer);
    return added;
  }

  /** Tells `listener` of each answer another client gave to a prompt of the task (the screen shows it). */
  onAnsweredElsewhere(listener: (answer: { prompt: string; text: string }) => void): () => void {
    this.answeredElsewhere.add(listener);
    return () => this.answeredElsewhere.delete(listener);
  }

  private emit(event: DispatcherEvent): void {
    this.emitter.emit(event);
  }

  /** Following stopped for good: the task is shown as failed through no fault of its command (exit 4). */
  private lose(message: string): void {
    if (!this.over) {
      this.failure = message;
      const task = this.model.task;
      if (task)
        this.stopShort({ ...task, state: "failed", failKind: "infrastructure", statusText: `failed: ${message}` });
    }
    this.finish();
  }

  /** The client stops following before the task ended: this is the task as it is shown and exits. */
  private stopShort(view: TaskView): void {
    this.lastView = view;
    this.emit({ type: "status", task: view });
  }

  private finish(): void {
    clearTimeout(this.limitTimer);
    this.abort.abort();
    this.ended?.();
  }

  private callOptions() {
    return { ...this.connection.options, signal: this.abort.signal };
  }

  // The dispatcher's part (LiveTask).

  subscribe(listener: Listener): () => void {
    return this.emitter.subscribe(listener);
  }

  get(_id: string, _withOutput?: boolean): TaskView {
    const task = this.lastView ?? this.model.task;
    if (!task) throw new ClientFailure("infrastructure", "no task yet");
    return task;
  }

  async settled(_id: string): Promise<void> {
    await this.end;
  }

  /** Sends an answer to the open prompt (CONTRACT section 4); a refusal is a CoreError, as the dispatcher's. */
  async answer(input: { taskId: string | undefined; contextId: string | undefined; response: unknown }) {
    const response = input.response as { prompt_id: string; payload: { text: string } };
    const before = this.ownAnswer;
    this.ownAnswer = response.prompt_id;
    try {
      await sendAnswerMessage(this.connection, input.taskId ?? "", response.prompt_id, response.payload.text);
    } catch (error) {
      this.ownAnswer = before;
      throw refusal(this.connection.failure(error));
    }
    // Taken: the prompt is closed here at once, as the dispatcher closes it, so it is not answered twice.
    const task = this.model.task;
    if (task?.state === "input-required" && task.prompt?.id === response.prompt_id) {
      for (const event of this.model.answered()) this.emit(event);
    }
    return this.get("");
  }

  cancelIfRunning(id: string): void {
    if (this.over) return;
    void this.connection.client
      .cancelTask(CancelTaskRequest.fromJSON({ id }), this.connection.options)
      .then((task) => {
        if (!this.over) this.feed({ payload: { $case: "task", value: task } });
        if (this.over) this.finish();
      })
      .catch((error) => this.say(`could not cancel the task: ${this.connection.failure(error).message}`));
  }

  /** A second Ctrl-C: stop following at once; the server was already asked to cancel. */
  killAll(): void {
    if (this.over) return;
    const task = this.model.task;
    if (task)
      this.stopShort({
        ...task,
        state: "canceled",
        statusText: "canceled: stopped following at once (Ctrl-C twice); the server was asked to cancel the task",
      });
    this.finish();
  }

  /**
   * A command on a server has no input we could close, and left waiting it would sit out its deadline: with no
   * answer left the task is canceled instead (docs/reference.md, "A runtime at a URL").
   */
  endInput(id: string): void {
    this.cancelIfRunning(id);
  }

  pauseOutput(): void {}

  resumeOutput(): void {}
}

/** A note shows at most this much of a remote prompt or answer. */
const MAX_NOTE_CHARS = 200;
const shortText = (text: string) =>
  printable(text.length > MAX_NOTE_CHARS ? `${text.slice(0, MAX_NOTE_CHARS - 1)}…` : text);

function isTerminalWire(task: { status?: { state: number } | undefined }): boolean {
  // TASK_STATE_COMPLETED, _FAILED, _CANCELED, _REJECTED
  return [3, 4, 5, 7].includes(task.status?.state ?? 0);
}

/** A user message with taskId and metadata.hitl_response_for (CONTRACT section 4), answered at once. */
export async function sendAnswerMessage(connection: Connection, taskId: string, promptId: string, text: string) {
  const message: Partial<Message> & Record<string, unknown> = {
    messageId: randomUUID(),
    role: "ROLE_USER" as never,
    taskId,
    parts: [{ text }] as never,
    metadata: { hitl_response_for: { prompt_id: promptId, payload: { text } } },
  };
  return connection.client.sendMessage(
    SendMessageRequest.fromJSON({ message, configuration: { returnImmediately: true } }),
    connection.options,
  );
}

/** An answer the server refused, in the dispatcher's terms, so src/ui/answers.ts words it the same. */
function refusal(failure: ClientFailure): CoreError {
  const reason = /deadline_passed|deadline/.test(failure.message)
    ? "deadline_passed"
    : /already.answered|unknown_or_answered|HITL_ALREADY/i.test(failure.message)
      ? "unknown_or_answered"
      : undefined;
  return new CoreError("hitl_unknown", failure.message, reason ? { reason } : {});
}
