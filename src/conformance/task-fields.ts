// What the scenarios read back from a task (A2A 1.0 ProtoJSON shapes): its state, its output artifacts, its open
// prompt.
import type { Json } from "./driver.js";
import { HITL } from "./uris.js";

export const STATE = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  inputRequired: "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  canceled: "TASK_STATE_CANCELED",
  rejected: "TASK_STATE_REJECTED",
} as const;
/** A2A 1.0 §4.1.3: the terminal states. */
export const ENDED = new Set<string>([STATE.completed, STATE.failed, STATE.canceled, STATE.rejected]);

export const taskOf = (result: Json): Json =>
  result && typeof result === "object" && "task" in result ? result.task : result;
export const stateOf = (task: Json): string => String(task?.status?.state ?? "(none)");

/** The text of every artifact part whose artifact is named `name` (or has that id). */
export function outputOf(task: Json, name: string): string {
  const artifacts: Json[] = Array.isArray(task?.artifacts) ? task.artifacts : [];
  return artifacts
    .filter((artifact) => artifact?.name === name || artifact?.artifactId === name)
    .flatMap((artifact) => (Array.isArray(artifact.parts) ? artifact.parts : []))
    .map((part: Json) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

/** Every artifact's text, joined. */
export function allOutput(task: Json): string {
  const artifacts: Json[] = Array.isArray(task?.artifacts) ? task.artifacts : [];
  return artifacts
    .flatMap((artifact) => (Array.isArray(artifact?.parts) ? artifact.parts : []))
    .map((part: Json) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

/** The hitl-prompt/v1 envelope of the task's open prompt, if any. */
export const promptOf = (task: Json): Json => task?.status?.message?.metadata?.[HITL];
