// The agent's message in a task's status, the same in both protocol versions: the open prompt (with its
// hitl-prompt/v1 envelope) while the task waits for input, else the status text. Each codec puts it in its shape.
import { promptEnvelope } from "../core/hitl/hitl.js";
import type { TaskView } from "../core/task/task-record.js";
import { HITL_URI } from "../core/uris.js";

export interface StatusMessage {
  messageId: string;
  text: string;
  /** The prompt's envelope and its activation; empty for a status text. */
  hitl: { metadata?: Record<string, unknown>; extensions?: string[] };
}

export function statusMessageOf(task: TaskView): StatusMessage | undefined {
  if (task.state === "input-required" && task.prompt)
    return {
      messageId: task.prompt.id,
      text: task.prompt.text,
      hitl: { metadata: { [HITL_URI]: promptEnvelope(task.prompt) }, extensions: [HITL_URI] },
    };
  if (task.statusText) return { messageId: `${task.id}-${task.state}`, text: task.statusText, hitl: {} };
  return undefined;
}
