// What a remote screen needs of a Task beyond its events, so it shows what a local one shows: what runs (the
// adapter and mode in metadata[ADAPTER], CONTRACT 5.4), the request file (the envelope of the request message, the
// first of the history), and the answer another client gave to a prompt (the history's answers, CONTRACT section 4:
// a status event only says the prompt closed, not with what).
import { GetTaskRequest, type Message, type Task } from "@a2a-js/sdk";
import { ADAPTER_URI } from "../core/uris.js";
import type { Runs } from "../ui/scrollback.js";
import type { Connection } from "./connect.js";
import { textOf } from "./remote-events.js";

const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** The adapter and mode the task runs, from its metadata; undefined for an echo task or a foreign one. */
export function runsOf(task: Task): Runs | undefined {
  const adapter = record(task.metadata?.[ADAPTER_URI]);
  return typeof adapter.adapter === "string" && typeof adapter.mode === "string"
    ? { adapter: adapter.adapter, mode: adapter.mode }
    : undefined;
}

/** The request file of the envelope the task was sent with (its command's 4th item), when the history has it. */
export function requestOf(task: Task): string | undefined {
  const first = task.history[0];
  const command = record(first?.metadata?.[ADAPTER_URI]).command;
  return Array.isArray(command) && typeof command[3] === "string" ? command[3] : undefined;
}

/** The text that answered `promptId`, if the history holds that answer. */
export function answerIn(history: readonly Message[], promptId: string): string | undefined {
  for (let i = history.length - 1; i >= 0; i -= 1) {
    const message = history[i];
    const response = record(message?.metadata?.hitl_response_for);
    if (response.prompt_id !== promptId) continue;
    const text = record(response.payload).text;
    return typeof text === "string" ? text : textOf(message);
  }
  return undefined;
}

/** The answers a task keeps in its history are few; this many of its last messages hold the one just given. */
const ANSWER_HISTORY = 8;
/** A lookup that takes longer is given up: the note is left out, the task is followed on. */
const LOOKUP_MS = 5_000;

/** Asks the server (GetTask with a short history) with what `promptId` was answered; undefined when it was not. */
export async function fetchAnswer(
  connection: Connection,
  taskId: string,
  promptId: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const timeout = AbortSignal.timeout(LOOKUP_MS);
  try {
    const task = await connection.client.getTask(
      GetTaskRequest.fromJSON({ id: taskId, historyLength: ANSWER_HISTORY }),
      { ...connection.options, signal: AbortSignal.any([signal, timeout]) },
    );
    return answerIn(task.history, promptId);
  } catch {
    return undefined;
  }
}
