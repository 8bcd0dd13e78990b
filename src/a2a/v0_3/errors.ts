// The one table from core errors to A2A 0.3 JSON-RPC errors (and -32010/-32011 of hitl-prompt/v1): `data` is an object.
import type { CoreError, CoreErrorCode } from "../../core/errors.js";
import { HITL_URI } from "../../core/uris.js";
import { A2A_CODES, type RpcError } from "../rpc-codes.js";

const TABLE: Record<CoreErrorCode, { code: number; hitl?: boolean; message?: string }> = {
  envelope_rejected: { code: A2A_CODES.invalidParams },
  invalid_params: { code: A2A_CODES.invalidParams },
  task_not_found: { code: A2A_CODES.taskNotFound },
  task_not_cancelable: { code: A2A_CODES.taskNotCancelable },
  hitl_unknown: { code: A2A_CODES.hitlUnknown, hitl: true, message: "hitl_already_answered_or_unknown" },
  hitl_invalid: { code: A2A_CODES.hitlInvalid, hitl: true, message: "hitl_response_invalid" },
  busy: { code: A2A_CODES.serverBusy, message: "server busy" },
  shutting_down: { code: A2A_CODES.serverBusy, message: "server shutting down" },
  unsupported_operation: { code: A2A_CODES.unsupportedOperation },
  push_not_supported: { code: A2A_CODES.pushNotSupported },
  extended_card_not_configured: { code: A2A_CODES.extendedCardNotConfigured },
  version_not_supported: { code: A2A_CODES.versionNotSupported },
  content_type_not_supported: { code: A2A_CODES.contentTypeNotSupported },
};

export function rpcErrorOf(error: CoreError): RpcError {
  const row = TABLE[error.code];
  // A fixed message ("server busy", CONTRACT 5.5) keeps the core's words in `data.detail`.
  const detail = row.message && !row.hitl ? { detail: error.message } : {};
  const data = row.hitl ? { extension: HITL_URI, ...error.data } : { ...error.data, ...detail };
  return { code: row.code, message: row.message ?? error.message, data };
}
