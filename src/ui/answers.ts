// Answers to prompts, one path for the screen and the plain mode (CONTRACT section 6): `sendAnswer` delivers a text
// to the open prompt and says in words why one was refused; `answerPrompts` answers each prompt as it opens from a
// source: the --answer values in order, then lines of our own stdin (typed ones too, when it is a terminal).

import { CoreError } from "../core/errors.js";
import type { TaskView } from "../core/task/task-record.js";
import { LineReader } from "../io/line-reader.js";
import type { LiveTask } from "./live-task.js";

export type AnswerResult =
  | { ok: true; prompt: string }
  | {
      ok: false;
      /** The prompt the answer was meant for; undefined when none was open. */
      prompt: string | undefined;
      reason: string;
      /** The same prompt is still open, so another answer may be tried. */
      stillOpen: boolean;
    };

/** The prompt open on the task now, if any. */
function openPrompt(dispatcher: LiveTask, taskId: string): { task: TaskView; id: string; text: string } | undefined {
  const task = dispatcher.get(taskId, false);
  return task.state === "input-required" && task.prompt
    ? { task, id: task.prompt.id, text: task.prompt.text }
    : undefined;
}

/** Sends `text` to the prompt open now on the task. Never throws: a refusal comes back in words. */
export async function sendAnswer(dispatcher: LiveTask, taskId: string, text: string): Promise<AnswerResult> {
  const open = openPrompt(dispatcher, taskId);
  if (!open) return { ok: false, prompt: undefined, reason: NO_PROMPT, stillOpen: false };
  try {
    await dispatcher.answer({
      taskId,
      contextId: open.task.contextId,
      response: { prompt_id: open.id, payload: { text } },
    });
    return { ok: true, prompt: open.text };
  } catch (error) {
    return {
      ok: false,
      prompt: open.text,
      reason: describeRefusal(error),
      stillOpen: openPrompt(dispatcher, taskId)?.id === open.id,
    };
  }
}

const NO_PROMPT = "no prompt is open (the command printed more, or it has ended)";

/** Why an answer was not taken, for a person (the reasons of CONTRACT section 4). */
export function describeRefusal(error: unknown): string {
  if (!(error instanceof CoreError)) return String(error);
  const reason = error.data.reason;
  if (reason === "deadline_passed") return "the deadline has passed: the answer was not sent";
  if (reason === "unknown_or_answered")
    return "that prompt is no longer open (the command printed more or it was answered)";
  if (reason === "no_live_binding") return "the command is no longer running";
  if (reason === "delivery_failed") return "the command did not take the answer (its input is closed)";
  if (typeof reason === "string") return reason;
  return error.data.validation_errors?.map((e) => e.message).join("; ") || error.message;
}

export class AnswerSource {
  private readonly given: string[];
  private reader: LineReader | undefined;

  constructor(
    answers: readonly string[],
    private readonly stdin: NodeJS.ReadStream | undefined,
  ) {
    this.given = [...answers];
  }

  /** The next answer will be typed by a person at a terminal (no --answer value is left). */
  get fromTerminal(): boolean {
    return this.given.length === 0 && this.stdin?.isTTY === true;
  }

  async next(): Promise<string | undefined> {
    const answer = this.given.shift();
    if (answer !== undefined) return answer;
    if (!this.stdin) return undefined;
    // A terminal stays in line mode: the person sees what they type, edits it, and Ctrl-C still sends SIGINT.
    this.reader ??= new LineReader(this.stdin);
    return this.reader.next();
  }

  close(): void {
    this.reader?.close();
  }
}

export interface AnswerReport {
  answered(prompt: string, text: string): void;
  refused(prompt: string, reason: string): void;
  /** The source has no answer left for this prompt. */
  exhausted(prompt: string): void;
  /** The source is about to wait for a person to type an answer at the terminal. */
  waiting?(prompt: string): void;
}

/** Answers each prompt of a task from `source` as it opens; returns the function that stops it. */
export function answerPrompts(
  dispatcher: LiveTask,
  taskId: string,
  source: AnswerSource,
  report: AnswerReport,
): () => void {
  let busy = false;
  let again = false;
  /** Answers the open prompt; true when it refused the answer and is still open, so the next one is tried. */
  const respond = async (): Promise<boolean> => {
    const asked = openPrompt(dispatcher, taskId);
    if (asked && source.fromTerminal) report.waiting?.(asked.text);
    const text = await source.next();
    // The prompt may have been withdrawn or replaced while we waited: answer the one open now.
    const open = openPrompt(dispatcher, taskId);
    if (!open) return false;
    if (text === undefined) {
      report.exhausted(open.text);
      return false;
    }
    const result = await sendAnswer(dispatcher, taskId, text);
    if (result.ok) report.answered(result.prompt, text);
    else report.refused(result.prompt ?? open.text, result.reason);
    return !result.ok && result.stillOpen;
  };
  const run = () => {
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    void respond()
      .catch(() => false)
      .then((retry) => {
        busy = false;
        const more = again || retry;
        again = false;
        if (more && openPrompt(dispatcher, taskId)) run();
      });
  };
  const stop = dispatcher.subscribe((event) => {
    if (event.type === "status" && event.task.id === taskId && event.task.state === "input-required") run();
  });
  // A prompt already open is answered too: a remote task's next event can arrive before this subscribes (its stream
  // is read on), and a task being watched may be waiting at a prompt already.
  if (openPrompt(dispatcher, taskId)) run();
  return stop;
}
