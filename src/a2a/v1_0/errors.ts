// The one table from core errors to A2A 1.0 errors (CONTRACT 7.5, 8.3): JSON-RPC `data` as typed google.rpc details,
// and the HTTP status and google.rpc.Status of the REST binding. An A2A error (domain a2a-protocol.org) has the HTTP
// status and google.rpc status A2A 1.0.1 §5.4 gives it, wherever it is answered (docs/reference.md, "Errors").
import { type CoreError, type CoreErrorCode, HITL_REASONS, type HitlReason } from "../../core/errors.js";
import type { TaskState } from "../../core/task/task.js";
import { HITL_URI } from "../../core/uris.js";
import { A2A_CODES, type RpcError } from "../rpc-codes.js";
import { STATE_NAMES } from "./codec.js";

export const A2A_DOMAIN = "a2a-protocol.org";
export const OUR_DOMAIN = "agentic-sandbox.aiwg.io";
const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";

interface Row {
  code: number;
  reason: string;
  domain: string;
  http: number;
  status: string;
  /** Replaces the core's words; `prefix` goes before them. */
  message?: string;
  prefix?: string;
}

const row = (code: number, reason: string, http: number, status: string, domain = A2A_DOMAIN): Row => ({
  code,
  reason,
  domain,
  http,
  status,
});

/** A hitl-prompt/v1 refusal: its message is the extension's error name, the reason in lower case. */
const hitl = (code: number, reason: string, http: number, status: string): Row => ({
  ...row(code, reason, http, status, OUR_DOMAIN),
  message: reason.toLowerCase(),
});

/** A request refused for the server's load (JSON-RPC's server-busy code), the core's words after `prefix`. */
const busy = (reason: string, http: number, status: string, prefix: string): Row => ({
  ...row(A2A_CODES.serverBusy, reason, http, status, OUR_DOMAIN),
  prefix,
});

export const TABLE: Record<CoreErrorCode, Row> = {
  envelope_rejected: row(A2A_CODES.invalidParams, "ADAPTER_COMMAND_REJECTED", 400, "INVALID_ARGUMENT", OUR_DOMAIN),
  invalid_params: row(A2A_CODES.invalidParams, "INVALID_PARAMS", 400, "INVALID_ARGUMENT"),
  task_not_found: row(A2A_CODES.taskNotFound, "TASK_NOT_FOUND", 404, "NOT_FOUND"),
  // 400, not 1.0.0's 409: A2A 1.0.1 §5.4 changed it (docs/reference.md, "Errors").
  task_not_cancelable: row(A2A_CODES.taskNotCancelable, "TASK_NOT_CANCELABLE", 400, "FAILED_PRECONDITION"),
  hitl_unknown: hitl(A2A_CODES.hitlUnknown, "HITL_ALREADY_ANSWERED_OR_UNKNOWN", 409, "ABORTED"),
  hitl_invalid: hitl(A2A_CODES.hitlInvalid, "HITL_RESPONSE_INVALID", 422, "INVALID_ARGUMENT"),
  busy: busy("QUEUE_FULL", 503, "UNAVAILABLE", "server busy"),
  shutting_down: busy("SHUTTING_DOWN", 503, "UNAVAILABLE", "server shutting down"),
  unsupported_operation: row(A2A_CODES.unsupportedOperation, "UNSUPPORTED_OPERATION", 400, "FAILED_PRECONDITION"),
  push_not_supported: row(A2A_CODES.pushNotSupported, "PUSH_NOTIFICATION_NOT_SUPPORTED", 400, "FAILED_PRECONDITION"),
  extended_card_not_configured: row(
    A2A_CODES.extendedCardNotConfigured,
    "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    400,
    "FAILED_PRECONDITION",
  ),
  version_not_supported: row(A2A_CODES.versionNotSupported, "VERSION_NOT_SUPPORTED", 400, "FAILED_PRECONDITION"),
  // A request body's media type and a message part's alike: 400, not 1.0.0's 415 (A2A 1.0.1 §5.4).
  content_type_not_supported: row(
    A2A_CODES.contentTypeNotSupported,
    "CONTENT_TYPE_NOT_SUPPORTED",
    400,
    "INVALID_ARGUMENT",
  ),
  extension_support_required: row(
    A2A_CODES.extensionSupportRequired,
    "EXTENSION_SUPPORT_REQUIRED",
    400,
    "FAILED_PRECONDITION",
  ),
  slow_consumer: busy("SLOW_CONSUMER", 429, "RESOURCE_EXHAUSTED", "stream ended"),
  // gRPC's status for a message past its size limit; asking again for the same is refused again.
  response_too_large: busy("RESPONSE_TOO_LARGE", 429, "RESOURCE_EXHAUSTED", "response too large"),
  idempotency_key_reused: row(
    A2A_CODES.idempotencyKeyReused,
    "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD",
    422,
    "INVALID_ARGUMENT",
    OUR_DOMAIN,
  ),
};

export type Detail =
  | { "@type": typeof ERROR_INFO; reason: string; domain: string; metadata: Record<string, string> }
  | { "@type": typeof BAD_REQUEST; fieldViolations: Array<{ field: string; description: string; reason: string }> };

function messageOf(error: CoreError, entry: Row): string {
  // A refused answer says why in words too (a 409 that only says "already answered or unknown" leaves the reader
  // to dig in details); the word before the colon stays the hitl-prompt/v1 error name.
  const reason = error.code === "hitl_unknown" ? error.data.reason : undefined;
  if (entry.message && reason && reason in HITL_REASONS)
    return `${entry.message}: ${HITL_REASONS[reason as HitlReason]}`;
  return entry.message ?? (entry.prefix ? `${entry.prefix}: ${error.message}` : error.message);
}

function detailsOf(error: CoreError, entry: Row): Detail[] {
  const { data } = error;
  const metadata: Record<string, string> = {};
  if (entry.code === A2A_CODES.hitlUnknown || entry.code === A2A_CODES.hitlInvalid) {
    metadata.extension = HITL_URI;
    if (data.prompt_id) metadata.prompt_id = data.prompt_id;
    if (data.reason) metadata.reason = data.reason;
  } else if (data.reason) metadata.reason = data.reason;
  if (data.task_id) metadata.taskId = data.task_id;
  if (data.state) metadata.state = STATE_NAMES[data.state as TaskState] ?? data.state;
  if (data.version) metadata.version = data.version;
  if (data.missing_extensions) metadata.missing_extensions = data.missing_extensions;
  if (data.message_id !== undefined) metadata.message_id = data.message_id;
  if (data.original_request_hash) metadata.original_request_hash = data.original_request_hash;
  if (data.submitted_request_hash) metadata.submitted_request_hash = data.submitted_request_hash;
  const details: Detail[] = [{ "@type": ERROR_INFO, reason: entry.reason, domain: entry.domain, metadata }];
  const violations = [
    ...(data.errors ?? []).map((e) => ({ field: e.path, description: e.message, reason: e.code })),
    ...(data.validation_errors ?? []).map((e) => ({ field: e.path, description: e.message, reason: e.keyword })),
  ];
  if (violations.length > 0) details.push({ "@type": BAD_REQUEST, fieldViolations: violations });
  return details;
}

/** The JSON-RPC error of a 1.0 method. */
export function rpcErrorOf(error: CoreError): RpcError {
  const entry = TABLE[error.code];
  return { code: entry.code, message: messageOf(error, entry), data: detailsOf(error, entry) };
}

export interface RestError {
  http: number;
  body: { error: { code: number; status: string; message: string; details: Detail[] } };
}

/** The REST answer of an error: its HTTP status and google.rpc.Status body. */
export function restErrorOf(error: CoreError): RestError {
  const entry = TABLE[error.code];
  const { http, status } = entry;
  return {
    http,
    body: {
      error: {
        code: http,
        status,
        message: messageOf(error, entry),
        details: detailsOf(error, entry),
      },
    },
  };
}

/** An HTTP-level refusal (401, 403, 413, 500...) in the same google.rpc.Status shape. */
export function httpError(http: number, status: string, message: string, reason?: string): RestError["body"] {
  const details: Detail[] = reason ? [{ "@type": ERROR_INFO, reason, domain: A2A_DOMAIN, metadata: {} }] : [];
  return { error: { code: http, status, message, details } };
}

/**
 * The REST answer of a 1.0 JSON-RPC error: the HTTP+JSON binding answers through the same method table, so its
 * errors arrive as JSON-RPC errors and find their row again by code and ErrorInfo reason (CONTRACT 8.3).
 */
export function restErrorOfRpc(error: RpcError): RestError {
  const details = Array.isArray(error.data) ? (error.data as Detail[]) : [];
  const info = details.find((detail) => detail["@type"] === ERROR_INFO);
  const reason = info && "reason" in info ? info.reason : undefined;
  const entry = Object.values(TABLE).find((row) => row.code === error.code && row.reason === reason);
  const { http, status } = entry
    ? entry
    : error.code === A2A_CODES.invalidParams || error.code === A2A_CODES.invalidRequest
      ? { http: 400, status: "INVALID_ARGUMENT" }
      : { http: 500, status: "INTERNAL" };
  return { http, body: { error: { code: http, status, message: error.message, details } } };
}
