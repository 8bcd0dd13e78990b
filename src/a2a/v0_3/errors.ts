// The one table from core errors to A2A 0.3 JSON-RPC errors (and -32010/-32011 of hitl-prompt/v1): `data` is an object.
import type { CoreError, CoreErrorCode } from "../../core/errors.js";
import { HITL_URI } from "../../core/uris.js";
import { A2A_CODES, type RpcError } from "../rpc-codes.js";

/** `message` replaces the core's words; `prefix` goes before them. */
export const TABLE: Record<CoreErrorCode, { code: number; hitl?: boolean; message?: string; prefix?: string }> = {
  envelope_rejected: { code: A2A_CODES.invalidParams },
  invalid_params: { code: A2A_CODES.invalidParams },
  task_not_found: { code: A2A_CODES.taskNotFound },
  task_not_cancelable: { code: A2A_CODES.taskNotCancelable },
  hitl_unknown: { code: A2A_CODES.hitlUnknown, hitl: true, message: "hitl_already_answered_or_unknown" },
  hitl_invalid: { code: A2A_CODES.hitlInvalid, hitl: true, message: "hitl_response_invalid" },
  // A full queue (CONTRACT 5.5): data.reason "queue_full" tells the client to try again later.
  busy: { code: A2A_CODES.serverBusy, prefix: "server busy" },
  shutting_down: { code: A2A_CODES.serverBusy, prefix: "server shutting down" },
  unsupported_operation: { code: A2A_CODES.unsupportedOperation },
  push_not_supported: { code: A2A_CODES.pushNotSupported },
  extended_card_not_configured: { code: A2A_CODES.extendedCardNotConfigured },
  version_not_supported: { code: A2A_CODES.versionNotSupported },
  content_type_not_supported: { code: A2A_CODES.contentTypeNotSupported },
  extension_support_required: { code: A2A_CODES.extensionSupportRequired },
  idempotency_key_reused: { code: A2A_CODES.idempotencyKeyReused },
  // A stream's client too far behind (CONTRACT 8.4): data.reason "slow_consumer".
  slow_consumer: { code: A2A_CODES.serverBusy, prefix: "stream ended" },
  // An answer past its bound (docs/reference.md, "Answer size"): data.reason "response_too_large".
  response_too_large: { code: A2A_CODES.serverBusy, prefix: "response too large" },
};

export function rpcErrorOf(error: CoreError): RpcError {
  const row = TABLE[error.code];
  const data = row.hitl ? { extension: HITL_URI, ...error.data } : { ...error.data };
  const message = row.message ?? (row.prefix ? `${row.prefix}: ${error.message}` : error.message);
  return { code: row.code, message, data };
}
