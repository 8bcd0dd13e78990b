// What the page says about states and refusals, in words (CONTRACT section 10: state is never told by colour
// alone). Pure.

export const STATES: Record<string, { word: string; mark: string; ended: boolean }> = {
  TASK_STATE_SUBMITTED: { word: "submitted", mark: "○", ended: false },
  TASK_STATE_WORKING: { word: "working", mark: "▶", ended: false },
  TASK_STATE_INPUT_REQUIRED: { word: "input required", mark: "?", ended: false },
  TASK_STATE_COMPLETED: { word: "completed", mark: "✓", ended: true },
  TASK_STATE_FAILED: { word: "failed", mark: "✗", ended: true },
  TASK_STATE_CANCELED: { word: "canceled", mark: "■", ended: true },
};

export function stateOf(state: unknown): { word: string; mark: string; ended: boolean; name: string } {
  const name = String(state ?? "");
  return {
    name,
    ...(STATES[name] ?? { word: name.replace(/^TASK_STATE_/, "").toLowerCase(), mark: "·", ended: false }),
  };
}

/** The refusal of an answer (CONTRACT section 4) in words. */
export function answerRefusal(error: {
  http: number;
  status: string;
  reason?: string | undefined;
  metadata: Record<string, string>;
  violations: Array<{ description: string }>;
  message: string;
}): string {
  const why = error.metadata.reason;
  if (why === "delivery_failed") return "Not delivered: the command no longer reads its input.";
  if (error.reason === "HITL_ALREADY_ANSWERED_OR_UNKNOWN" || error.http === 409) {
    if (why === "deadline_passed") return "Not sent: the deadline of this prompt has passed.";
    if (why === "no_live_binding") return "Not sent: the command is no longer running in this server.";
    if (why === "context_mismatch") return "Not sent: the answer names another context than the task's.";
    if (why === "restricted_responder") return "Not sent: this prompt accepts answers only from named responders.";
    return "Not sent: this prompt was already answered, or it was withdrawn by new output.";
  }
  if (error.reason === "HITL_RESPONSE_INVALID" || error.http === 422) {
    const details = error.violations.map((violation) => violation.description).filter(Boolean);
    return `Not sent: the answer text is invalid${details.length > 0 ? `: ${details.join("; ")}` : ""}.`;
  }
  return `Not sent: ${error.message}`;
}

/** "3 s", "4 min 05 s", "2 h 03 min". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} min`;
}
