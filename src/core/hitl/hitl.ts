// hitl-prompt/v1 on adapter commands: prompt envelopes, and the shape and payload checks of an answer.
import { randomUUID } from "node:crypto";
import { isRecord } from "../envelope/json-value.js";
import { CoreError, type HitlReason, taskNotFound, type ValidationError } from "../errors.js";
import { HITL_URI } from "../uris.js";

/** The longest answer to a hitl prompt, in UTF-8 bytes (CONTRACT section 4). */
export const MAX_HITL_ANSWER_BYTES = 4096;

export const RESPONSE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["text"],
  properties: { text: { type: "string", maxLength: MAX_HITL_ANSWER_BYTES } },
} as const;

export interface OpenPrompt {
  id: string;
  text: string;
  /** RFC 3339: the command's deadline. */
  deadline: string;
  allowedResponders: string[];
}

export function newPrompt(text: string, deadline: Date): OpenPrompt {
  return { id: randomUUID(), text, deadline: deadline.toISOString(), allowedResponders: ["any"] };
}

/** The value for `status.message.metadata[HITL]`, valid against the hitl-prompt/v1 envelope schema. */
export function promptEnvelope(prompt: OpenPrompt) {
  return {
    prompt_id: prompt.id,
    prompt: prompt.text,
    response_schema: RESPONSE_SCHEMA,
    deadline: prompt.deadline,
    allowed_responders: prompt.allowedResponders,
  };
}

export { HITL_URI };

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-5][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}$/;

export interface ResponseFor {
  prompt_id: string;
  payload: Record<string, unknown>;
}

/** Check 1: `hitl_response_for` against response.schema.json. */
function checkResponseShape(
  value: unknown,
): { ok: true; value: ResponseFor } | { ok: false; errors: ValidationError[] } {
  if (!isRecord(value)) {
    return {
      ok: false,
      errors: [{ path: "", keyword: "type", message: `expected an object, found ${kindOf(value)}` }],
    };
  }
  const errors: ValidationError[] = [];
  for (const key of ["prompt_id", "payload"]) {
    if (!(key in value)) errors.push({ path: "", keyword: "required", message: `missing required property '${key}'` });
  }
  for (const key of Object.keys(value)) {
    if (key !== "prompt_id" && key !== "payload") {
      errors.push({
        path: `/${key}`,
        keyword: "additionalProperties",
        message: `additional property '${key}' is not permitted`,
      });
    }
  }
  if ("prompt_id" in value) {
    if (typeof value.prompt_id !== "string") {
      errors.push({ path: "/prompt_id", keyword: "type", message: `expected string, got ${kindOf(value.prompt_id)}` });
    } else if (!UUID.test(value.prompt_id)) {
      errors.push({ path: "/prompt_id", keyword: "pattern", message: "expected a UUID" });
    }
  }
  if ("payload" in value && !isRecord(value.payload)) {
    errors.push({ path: "/payload", keyword: "type", message: `expected object, got ${kindOf(value.payload)}` });
  }
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: value as unknown as ResponseFor };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A high surrogate not followed by a low one, or a low one without a high one before it (UTF-16 code units). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Check 3: the payload against the prompt's response schema, with the byte limit and the rules on control characters and lone surrogates. */
function checkPayload(
  payload: Record<string, unknown>,
): { ok: true; text: string } | { ok: false; errors: ValidationError[] } {
  const errors: ValidationError[] = [];
  for (const key of Object.keys(payload)) {
    if (key !== "text") {
      errors.push({
        path: `/${key}`,
        keyword: "additionalProperties",
        message: `additional property '${key}' is not permitted`,
      });
    }
  }
  const text = payload.text;
  if (!("text" in payload)) {
    errors.push({ path: "", keyword: "required", message: "missing required property 'text'" });
  } else if (typeof text !== "string") {
    errors.push({ path: "/text", keyword: "type", message: `expected string, got ${kindOf(text)}` });
  } else {
    const bytes = Buffer.byteLength(text);
    if (bytes > MAX_HITL_ANSWER_BYTES) {
      errors.push({
        path: "/text",
        keyword: "maxLength",
        message: `expected at most ${MAX_HITL_ANSWER_BYTES} UTF-8 bytes, got ${bytes}`,
      });
    }
    const control = CONTROL.exec(text);
    if (control) {
      const code = (control[0].codePointAt(0) as number).toString(16).padStart(4, "0").toUpperCase();
      errors.push({ path: "/text", keyword: "pattern", message: `control character U+${code} is not permitted` });
    }
    // Written to stdin as UTF-8 it would become U+FFFD, text the orchestrator never sent.
    const lone = LONE_SURROGATE.exec(text);
    if (lone) {
      const code = (lone[0].charCodeAt(0) as number).toString(16).toUpperCase();
      errors.push({
        path: "/text",
        keyword: "pattern",
        message: `expected well-formed Unicode text, found a lone surrogate U+${code} at character ${lone.index}`,
      });
    }
  }
  if (errors.length > 0 || typeof text !== "string") return { ok: false, errors };
  return { ok: true, text };
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

/** What the dispatcher knows of the task an answer names; undefined when there is no such task. */
export interface AnswerTarget {
  liveBinding: boolean;
  contextId: string;
  openPrompt: OpenPrompt | undefined;
}

export type AnswerVerdict =
  | { ok: true; prompt: OpenPrompt; text: string }
  | {
      ok: false;
      code: "hitl_invalid" | "hitl_unknown" | "task_not_found";
      reason?: HitlReason;
      promptId?: string;
      validationErrors?: ValidationError[];
    };

/** The ordered answer checks of CONTRACT section 4; the first that fails decides. */
export function judgeAnswer(
  response: unknown,
  contextId: string | undefined,
  target: AnswerTarget | undefined,
  now: number,
): AnswerVerdict {
  const shape = checkResponseShape(response);
  const promptId = isRecord(response) && typeof response.prompt_id === "string" ? response.prompt_id : undefined;
  const ids = promptId ? { promptId } : {};
  if (!shape.ok) return { ok: false, code: "hitl_invalid", validationErrors: shape.errors, ...ids };
  if (!target) return { ok: false, code: "task_not_found", ...ids };
  const refuse = (reason: HitlReason): AnswerVerdict => ({ ok: false, code: "hitl_unknown", reason, ...ids });
  if (!target.liveBinding) return refuse("no_live_binding");
  // No contextId: the task's, inferred (A2A 1.0 §3.4.3); only a different one is refused.
  if (contextId !== undefined && contextId !== target.contextId) return refuse("context_mismatch");
  const prompt = target.openPrompt;
  if (!prompt || prompt.id !== shape.value.prompt_id) return refuse("unknown_or_answered");
  if (now >= Date.parse(prompt.deadline)) return refuse("deadline_passed");
  if (prompt.allowedResponders.length !== 1 || prompt.allowedResponders[0] !== "any")
    return refuse("restricted_responder");
  const payload = checkPayload(shape.value.payload);
  if (!payload.ok) return { ok: false, code: "hitl_invalid", validationErrors: payload.errors, ...ids };
  return { ok: true, prompt, text: payload.text };
}

/** The error a refused answer gets (CONTRACT section 4). */
export function refusalOf(verdict: Extract<AnswerVerdict, { ok: false }>, taskId: string | undefined): CoreError {
  const promptId = verdict.promptId ? { prompt_id: verdict.promptId } : {};
  if (verdict.code === "task_not_found") return taskNotFound(taskId ?? "(none)");
  if (verdict.code === "hitl_invalid") {
    return new CoreError("hitl_invalid", "hitl_response_invalid", {
      ...promptId,
      validation_errors: verdict.validationErrors ?? [],
    });
  }
  return new CoreError("hitl_unknown", "hitl_already_answered_or_unknown", {
    ...promptId,
    ...(verdict.reason ? { reason: verdict.reason } : {}),
  });
}
