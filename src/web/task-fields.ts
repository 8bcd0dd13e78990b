// Reading the parts of a 1.0 Task the page shows (CONTRACT 7.2, 5.4): the runtime's record in metadata[ADAPTER],
// the envelope of the first message, the open prompt. Pure.
import { ADAPTER_URI, HITL_URI } from "../core/uris.js";

export type Json = Record<string, unknown>;

export const record = (value: unknown): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : {};

/** A list's entries as records; no entries when it is not a list. */
export const records = (value: unknown): Json[] => (Array.isArray(value) ? value.map(record) : []);

export interface Task {
  id: string;
  contextId: string;
  status: { state: string; timestamp?: string; message?: Json };
  metadata?: Json;
  history?: Json[];
  artifacts?: Json[];
}

/** metadata[ADAPTER]: mode, working_dir, deadline, started_at, ended_at, exit_code, signal, fail_kind, reason. */
export function runInfo(task: Task): Json {
  return record(record(task.metadata)[ADAPTER_URI]);
}

/** The envelope the task was sent with (its first message's metadata[ADAPTER]), or undefined for an echo. */
export function envelopeOf(task: Task): Json | undefined {
  const first = task.history?.[0];
  const envelope = record(first?.metadata)[ADAPTER_URI];
  return envelope === undefined ? undefined : record(envelope);
}

export interface OpenPrompt {
  promptId: string;
  prompt: string;
  deadline?: string;
}

export function openPrompt(task: Task): OpenPrompt | undefined {
  if (task.status.state !== "TASK_STATE_INPUT_REQUIRED") return undefined;
  const hitl = record(record(task.status.message?.metadata)[HITL_URI]);
  if (typeof hitl.prompt_id !== "string") return undefined;
  return {
    promptId: hitl.prompt_id,
    prompt: typeof hitl.prompt === "string" ? hitl.prompt : "",
    ...(typeof hitl.deadline === "string" ? { deadline: hitl.deadline } : {}),
  };
}

/** One line saying what the task runs: "plan · ask" (mode and working directory's last name), or "echo". */
export function summary(task: Task): string {
  const info = runInfo(task);
  if (typeof info.mode !== "string") return "echo";
  const dir = typeof info.working_dir === "string" ? info.working_dir.split("/").filter(Boolean).pop() : undefined;
  return dir ? `${info.mode} · ${dir}` : info.mode;
}

/** The output kept in a Task's artifacts, in the order it was written (parts carry a `seq` shared by both streams). */
export function artifactOutput(task: Task): { stream: "stdout" | "stderr"; text: string }[] {
  const parts: { stream: "stdout" | "stderr"; text: string; seq: number }[] = [];
  for (const artifact of task.artifacts ?? []) {
    const stream = artifact.artifactId === "stderr" ? "stderr" : "stdout";
    for (const part of records(artifact.parts)) {
      if (typeof part.text === "string")
        parts.push({ stream, text: part.text, seq: Number(record(part.metadata).seq ?? 0) });
    }
  }
  return parts.sort((a, b) => a.seq - b.seq);
}

/** Bytes the server's record dropped from the middle of the output (CONTRACT 3.3), both streams. */
export function droppedBytes(task: Task): number {
  let dropped = 0;
  for (const artifact of task.artifacts ?? []) dropped += Number(record(artifact.metadata).dropped_bytes ?? 0) || 0;
  return dropped;
}
