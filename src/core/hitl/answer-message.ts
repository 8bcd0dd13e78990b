// The message that carries an answer (CONTRACT section 4): a user message with parts, else invalid params, before
// any of the ordered answer checks. Each protocol family spells the user's role its own way, so the caller says
// which value it accepts.
import { isRecord } from "../envelope/json-value.js";
import type { Message, MessageSeen, Part } from "../envelope/message.js";
import { shown } from "../envelope/problems.js";
import { CoreError, type CoreErrorData } from "../errors.js";

type ParamError = NonNullable<CoreErrorData["errors"]>[number];

/** What is wrong with an answer's message, with JSON Pointers into the request's params (`/message/...`). */
export function answerMessageErrors(message: unknown, userRole: string): ParamError[] {
  if (!isRecord(message)) {
    return [
      { path: "/message", code: "wrong_type", message: `expected a message (an object), found ${shown(message)}` },
    ];
  }
  const errors: ParamError[] = [];
  const role = message.role;
  if (role === undefined) {
    errors.push({
      path: "/message/role",
      code: "missing_field",
      message: `missing required field "role": expected "${userRole}", found nothing`,
    });
  } else if (role !== userRole) {
    errors.push({
      path: "/message/role",
      code: "invalid_value",
      message: `expected "${userRole}" (an answer comes from the user), found ${shown(role)}`,
    });
  }
  const parts = message.parts;
  if (parts === undefined) {
    errors.push({
      path: "/message/parts",
      code: "missing_field",
      message: 'missing required field "parts": expected an array of parts, found nothing',
    });
  } else if (!Array.isArray(parts)) {
    errors.push({
      path: "/message/parts",
      code: "wrong_type",
      message: `expected an array of parts, found ${shown(parts)}`,
    });
  } else if (parts.length === 0) {
    errors.push({ path: "/message/parts", code: "empty", message: "expected at least one part, found none" });
  } else {
    parts.forEach((part, index) => {
      if (!isRecord(part))
        errors.push({
          path: `/message/parts/${index}`,
          code: "wrong_type",
          message: `expected a part (an object), found ${shown(part)}`,
        });
    });
  }
  return errors;
}

/** A message (of either family, or as the core read it) whose metadata carries `hitl_response_for` answers a prompt (CONTRACT section 4). */
export function carriesAnswer(message: unknown): boolean {
  return isRecord(message) && isRecord(message.metadata) && "hitl_response_for" in message.metadata;
}

/** Throws invalid params when `message` cannot carry an answer; see answerMessageErrors. */
export function checkAnswerMessage(message: unknown, userRole: string): void {
  const errors = answerMessageErrors(message, userRole);
  const first = errors[0];
  if (!first) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : "";
  throw new CoreError("invalid_params", `Invalid params: ${first.message} at ${first.path}${more}`, { errors });
}

/** Answers a task's history keeps; past this, the oldest answers give way (the request stays first). */
export const MAX_ANSWERS_KEPT = 100;

/**
 * The answer as the task's history keeps it (CONTRACT section 4): the message as its codec read it, its parts that
 * are parts, else its answer text as one text part, so that what is stored always reads back (src/store/rows.ts).
 */
export function historyMessageOf(message: MessageSeen | undefined, text: string): Message {
  const parts = (message?.parts ?? []).filter((part): part is Part => part !== undefined);
  const kept: Message = { role: "user", parts: parts.length > 0 ? parts : [{ type: "text", text }] };
  if (message?.messageId !== undefined) kept.messageId = message.messageId;
  if (message?.metadata !== undefined) kept.metadata = message.metadata;
  if (message?.extensions !== undefined) kept.extensions = message.extensions;
  return kept;
}
