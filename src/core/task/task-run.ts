// One task while it lives: its record, its process, the prompt detector, the decoders and the settle timer.

import { newPrompt, type OpenPrompt } from "../hitl/hitl.js";
import { PromptDetector } from "../hitl/prompt.js";
import type { TaskStore } from "../store.js";
import { type Emitter, LazyOutputEvent } from "./events.js";
import type { Outcome } from "./outcome.js";
import { keptChunk, type StreamName } from "./output-log.js";
import type { RunningCommand } from "./process.js";
import { assertMove, isTerminal, type TaskState } from "./task.js";
import type { TaskRecord } from "./task-record.js";
import { lastEventOf, viewOf } from "./task-record.js";
import { type DecodedChunk, Utf8Chunks } from "./utf8-chunks.js";

export interface TaskRunDeps {
  store: TaskStore;
  emitter: Emitter;
  now: () => number;
}

export class TaskRun {
  command: RunningCommand | undefined;
  /** Resolves once the task has ended. */
  readonly ended: Promise<void>;
  private markEnded!: () => void;
  private detector: PromptDetector | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private readonly decoders = { stdout: new Utf8Chunks(), stderr: new Utf8Chunks() };
  private readonly started = { stdout: false, stderr: false };

  constructor(
    readonly record: TaskRecord,
    private readonly deps: TaskRunDeps,
  ) {
    this.ended = new Promise<void>((resolve) => (this.markEnded = resolve));
  }

  get id(): string {
    return this.record.id;
  }

  /** Text-line input: output is watched for prompts (CONTRACT section 4). */
  watchForPrompts(settleMs: number | undefined): void {
    this.detector = new PromptDetector(settleMs === undefined ? {} : { settleMs });
  }

  move(
    to: TaskState,
    fields: Partial<Pick<TaskRecord, "startedAt" | "deadline" | "pid" | "pidStart" | "guard">> = {},
  ): void {
    const record = this.record;
    assertMove(record.state, to);
    Object.assign(record, fields);
    record.state = to;
    record.updatedAt = this.iso();
    record.revision += 1;
    record.statusEvents += 1;
    this.deps.store.put(record);
    this.emitStatus();
  }

  emitStatus(): void {
    this.deps.emitter.emit({ type: "status", task: viewOf(this.record, false) });
  }

  /** Bytes the command wrote on one stream. */
  output(stream: StreamName, raw: Buffer): void {
    this.emitText(stream, this.decoders[stream].write(raw), raw);
  }

  /** The stream closed: what its decoder still holds (an incomplete character) goes out too. */
  flush(stream: StreamName): void {
    const rest = this.decoders[stream].end();
    if (rest.data.length > 0) this.emitText(stream, rest, Buffer.alloc(0));
  }

  /** A command bound to its prompt can take an answer; one being canceled no longer is. */
  get liveBinding(): boolean {
    const command = this.command;
    return (
      !!command?.acceptsInput &&
      command.stopReason !== "cancel" &&
      this.record.textLine &&
      !isTerminal(this.record.state)
    );
  }

  /** Claims the open prompt for an answer: synchronous, so of concurrent answers exactly one gets it. */
  claimPrompt(): { prompt: OpenPrompt; revision: number } {
    const prompt = this.record.prompt as OpenPrompt;
    this.record.prompt = undefined;
    this.detector?.reset();
    this.move("working");
    return { prompt, revision: this.record.revision };
  }

  /** A delivery failed: the same prompt opens again, unless the task moved on since the claim. */
  reopen(prompt: OpenPrompt, revision: number): void {
    if (this.record.revision !== revision || isTerminal(this.record.state)) return;
    this.record.prompt = prompt;
    this.move("input-required");
  }

  /** Ends the task once; false when it had already ended. */
  end(outcome: Outcome): boolean {
    const record = this.record;
    if (isTerminal(record.state)) return false;
    clearTimeout(this.settleTimer);
    record.prompt = undefined;
    record.exitCode = outcome.exitCode;
    record.signal = outcome.signal;
    record.reason = outcome.reason;
    if (outcome.failKind) record.failKind = outcome.failKind;
    record.endedAt = this.iso();
    record.statusText = outcome.text;
    this.move(outcome.state);
    this.markEnded();
    return true;
  }

  stopWatching(): void {
    clearTimeout(this.settleTimer);
  }

  /** `piece`: complete characters the command wrote, as bytes and text (CONTRACT section 3.3); `raw`: the read. */
  private emitText(stream: StreamName, piece: DecodedChunk, raw: Buffer): void {
    const record = this.record;
    // No text at all: the read ended inside a character, which the next read completes.
    const empty = piece.data.length === 0;
    const seq = empty ? record.seq : ++record.seq;
    if (!empty) {
      const chunk = keptChunk(seq, stream, piece);
      record[stream].append(chunk);
      this.deps.store.appended?.(record, chunk);
    }
    const first = !this.started[stream] && !empty;
    if (first) this.started[stream] = true;
    this.deps.emitter.emit(
      new LazyOutputEvent(record.id, record.contextId, stream, seq, piece, raw, first, lastEventOf(record)),
    );
    if (this.detector && !empty) this.watch(piece.text);
  }

  private watch(text: string): void {
    const detector = this.detector as PromptDetector;
    const { record, deps } = this;
    detector.feed(text, deps.now());
    if (record.prompt) {
      // Output resumed: the open prompt is withdrawn and answers to it are stale.
      record.prompt = undefined;
      this.move("working");
    }
    clearTimeout(this.settleTimer);
    // Timers run on the event loop's cached clock and may fire a little early: check, and wait out the rest.
    const check = () => {
      // One reading of the clock for the whole decision: read again, a clock set back in between could find the
      // output quiet and then not, and with no output to come no later check would raise the prompt.
      const now = deps.now();
      const wait = detector.quietInMs(now);
      if (wait > 0) {
        this.settleTimer = setTimeout(check, wait);
        return;
      }
      const line = detector.due(now);
      const command = this.command;
      const deadline = Date.parse(record.deadline as string);
      // A command past its deadline, or being stopped, can no longer be answered: its prompt is not raised.
      const answerable = command?.running && command.stopReason === null && now < deadline;
      if (line === undefined || record.state !== "working" || !answerable) return;
      record.prompt = newPrompt(line, new Date(deadline));
      this.move("input-required");
    };
    this.settleTimer = setTimeout(check, detector.settleMs);
  }

  private iso(): string {
    return new Date(this.deps.now()).toISOString();
  }
}
