// The one table from core errors to JSON-RPC errors (A2A 0.3 codes, -32000 of CONTRACT 5.5, and -32010/-32011 of
// hitl-prompt/v1).
import { JSONRPCErrorException } from "json-rpc-2.0";
import type { CoreError, CoreErrorCode } from "../core/errors.js";
import { HITL_URI } from "../core/uris.js";

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  serverBusy: -32000,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  hitlUnknown: -32010,
  hitlInvalid: -32011,
} as const;

/** `message` replaces the core's words; `prefix` goes before them. */
const TABLE: Record<CoreErrorCode, { code: number; hitl?: boolean; message?: string; prefix?: string }> = {
  envelope_rejected: { code: RPC.invalidParams },
  invalid_params: { code: RPC.invalidParams },
  task_not_found: { code: RPC.taskNotFound },
  task_not_cancelable: { code: RPC.taskNotCancelable },
  hitl_unknown: { code: RPC.hitlUnknown, hitl: true, message: "hitl_already_answered_or_unknown" },
  hitl_invalid: { code: RPC.hitlInvalid, hitl: true, message: "hitl_response_invalid" },
  // A full queue (CONTRACT 5.5): data.reason "queue_full" tells the client to try again later.
  busy: { code: RPC.serverBusy, prefix: "server busy" },
  shutting_down: { code: RPC.internal },
};

export function toRpcError(error: CoreError): JSONRPCErrorException {
  const row = TABLE[error.code];
  const data = row.hitl ? { extension: HITL_URI, ...error.data } : { ...error.data };
  const message = row.message ?? (row.prefix ? `${row.prefix}: ${error.message}` : error.message);
  return new JSONRPCErrorException(message, row.code, data);
}
