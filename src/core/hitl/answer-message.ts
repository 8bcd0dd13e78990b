// The message that carries an answer (CONTRACT section 4): a user message with parts, else invalid params, before
// any of the ordered answer checks. Each protocol family spells the role its own way: "user" in A2A 0.3,
// "ROLE_USER" in 1.0, so the caller says which value it accepts.
import * as v from "valibot";
import { type Message, MessageSchema, PartSchema } from "../envelope/envelope-schema.js";
import { isRecord } from "../envelope/json-value.js";
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

/** A message in the core's shape whose metadata carries `hitl_response_for` answers a prompt (CONTRACT section 4). */
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
 * The answer as the task's history keeps it (CONTRACT section 4): the message as sent when it is a well-formed user
 * message, else its answer text as one text part, so that what is stored always reads back (src/store/rows.ts).
 */
export function historyMessageOf(message: unknown, text: string): Message {
  const sent = isRecord(message) ? message : {};
  const parts = Array.isArray(sent.parts) ? sent.parts.filter((part) => v.is(PartSchema, part)) : [];
  const kept: Record<string, unknown> = {
    role: "user",
    parts: parts.length > 0 ? parts : [{ kind: "text", text }],
  };
  if (typeof sent.messageId === "string") kept.messageId = sent.messageId;
  if (isRecord(sent.metadata)) kept.metadata = sent.metadata;
  if (Array.isArray(sent.extensions) && sent.extensions.every((uri) => typeof uri === "string"))
    kept.extensions = sent.extensions;
  const parsed = v.safeParse(MessageSchema, kept);
  return parsed.success ? parsed.output : { role: "user", parts: [{ kind: "text", text }] };
}
