// A2A 1.0 requests (CONTRACT 7.2): the 0.3 params of test/helpers/envelopes.ts in ProtoJSON shape, and the stream
// rules of 1.0 on stdio (CONTRACT 7.3).
import { isRecord } from "../../src/core/envelope/json-value.js";
import type { TaskEvent, Wire } from "./wire.js";

const ROLES: Record<string, string> = { user: "ROLE_USER", agent: "ROLE_AGENT" };

/** A 0.3 part as a 1.0 Part: `{ kind: "text", text }` → `{ text }`. */
function partV1(part: unknown): unknown {
  if (!isRecord(part)) return part;
  const { kind: _kind, ...rest } = part;
  return rest;
}

/** A 0.3 message as a 1.0 Message: no `kind`, roles as enum names, parts without `kind`. */
export function messageV1(message: unknown): Record<string, unknown> {
  if (!isRecord(message)) return {};
  const { kind: _kind, role, parts, ...rest } = message;
  return {
    ...rest,
    role: typeof role === "string" ? (ROLES[role] ?? role) : role,
    parts: Array.isArray(parts) ? parts.map(partV1) : parts,
  };
}

/** 0.3 MessageSendParams as a 1.0 SendMessageRequest; `blocking: false` becomes `returnImmediately: true`. */
export function paramsV1(params: Record<string, unknown>): Record<string, unknown> {
  const { message, configuration, ...rest } = params;
  const out: Record<string, unknown> = { ...rest, message: messageV1(message) };
  if (isRecord(configuration)) {
    const { blocking, ...other } = configuration;
    out.configuration = blocking === false ? { ...other, returnImmediately: true } : other;
  }
  return out;
}

export const ENDED_V1 = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED"];

/** True for the StreamResponse after which a 1.0 stream is over: an ended state or TASK_STATE_INPUT_REQUIRED. */
export function closesV1(event: TaskEvent | Wire): boolean {
  const state = event?.statusUpdate?.status?.state;
  return ENDED_V1.includes(state) || state === "TASK_STATE_INPUT_REQUIRED";
}

/** Merges `service` into `params.metadata["a2a-service-parameters"]` (CONTRACT 5.2, 7.6). */
export function withService(params: Record<string, unknown>, service: Record<string, string>) {
  const metadata = isRecord(params.metadata) ? params.metadata : {};
  const current = isRecord(metadata["a2a-service-parameters"]) ? metadata["a2a-service-parameters"] : {};
  return { ...params, metadata: { ...metadata, "a2a-service-parameters": { ...current, ...service } } };
}
