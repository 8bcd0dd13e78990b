// A task's history as both codecs write it: the request, then the answers to its prompts in the order they were
// accepted (CONTRACT section 4), cut to the most recent `historyLength` messages (A2A 1.0 §3.2.4).
import type { Message } from "../core/envelope/envelope.js";
import type { TaskView } from "../core/task/task-record.js";

export interface HistoryEntry {
  message: Message;
  /** A2A requires a messageId, which a sender may leave out: then one named after the task and the entry's place. */
  messageId: string;
}

/** The entries to write; none with `historyLength` 0, all when it is not given (or not a count). */
export function historyOf(task: TaskView, historyLength: number | undefined): HistoryEntry[] {
  if (historyLength !== undefined && historyLength < 1) return historyLength === 0 ? [] : historyOf(task, undefined);
  const entries: HistoryEntry[] = [];
  if (task.message) entries.push({ message: task.message, messageId: task.message.messageId ?? `${task.id}-request` });
  (task.answers ?? []).forEach((answer, index) => {
    entries.push({ message: answer, messageId: answer.messageId ?? `${task.id}-answer-${index + 1}` });
  });
  return historyLength === undefined ? entries : entries.slice(-Math.floor(historyLength));
}
