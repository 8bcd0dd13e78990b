// Transport-free errors: each protocol version maps these codes in one table of its own.
export type CoreErrorCode =
  | "envelope_rejected"
  | "invalid_params"
  | "task_not_found"
  | "task_not_cancelable"
  | "hitl_unknown"
  | "hitl_invalid"
  | "busy"
  | "shutting_down"
  | "unsupported_operation"
  | "push_not_supported"
  | "extended_card_not_configured"
  | "version_not_supported"
  | "content_type_not_supported"
  | "extension_support_required"
  | "idempotency_key_reused"
  /** An HTTP stream whose client fell too far behind (CONTRACT 8.4). */
  | "slow_consumer"
  /** An answer, or a batch's answer, past its bound (docs/reference.md, "Answer size"). */
  | "response_too_large";

/** Why an answer was refused with -32010 (`data.reason`), in the order the checks run (CONTRACT section 4). */
export const HITL_REASONS = {
  no_live_binding:
    "no command of this runtime is bound to the task any more (it ended, is being canceled, or ran before a restart)",
  context_mismatch: "the message's contextId is not the task's",
  unknown_or_answered: "prompt_id is not the open prompt: already answered, withdrawn by newer output, or never asked",
  deadline_passed: "the command's deadline has passed",
  restricted_responder: 'the prompt\'s allowed_responders are not ["any"]',
  delivery_failed: "writing the answer to the command's stdin failed; the prompt reopens if nothing changed",
} as const;
export type HitlReason = keyof typeof HITL_REASONS;

export interface ValidationError {
  path: string;
  keyword: string;
  message: string;
}

export interface CoreErrorData {
  errors?: Array<{ path: string; code: string; message: string }>;
  /** `kept_task_forgotten`: an idempotent retry whose kept answer names a task no longer kept (CONTRACT 9.1). */
  reason?: HitlReason | "queue_full" | "slow_consumer" | "response_too_large" | "kept_task_forgotten";
  prompt_id?: string;
  validation_errors?: ValidationError[];
  task_id?: string;
  state?: string;
  version?: string;
  /** -32008: the URIs a request must activate and did not, comma-separated (CONTRACT 9.5). */
  missing_extensions?: string;
  /** -32422 (CONTRACT 9.1). */
  code?: string;
  message_id?: string;
  original_request_hash?: string;
  submitted_request_hash?: string;
}

export class CoreError extends Error {
  constructor(
    readonly code: CoreErrorCode,
    message: string,
    readonly data: CoreErrorData = {},
  ) {
    super(message);
    this.name = "CoreError";
  }
}

export function notFound(id: string): CoreError {
  return new CoreError("task_not_found", `task not found: ${id}`, { task_id: id });
}

/** An envelope or message refused before any task exists (CONTRACT section 2). */
export function rejected(errors: Array<{ path: string; code: string; message: string }>, dispatch?: string): CoreError {
  const first = errors[0];
  const what = dispatch === "echo" ? "message" : "adapter-command/v1";
  const summary = first ? `${first.message}${first.path ? ` at ${first.path}` : ""}` : "invalid input";
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  // Only parts of a media type we do not take: ContentTypeNotSupported, not invalid params (CONTRACT 3.4).
  const code = errors.length > 0 && errors.every((e) => e.code === "content_type_not_supported");
  return new CoreError(
    code ? "content_type_not_supported" : "envelope_rejected",
    `${what} rejected: ${summary}${more}`,
    {
      errors,
    },
  );
}
