// The one table from core errors to JSON-RPC errors (A2A 0.3 codes, and -32010/-32011 of hitl-prompt/v1).
import { JSONRPCErrorException } from "json-rpc-2.0";
import type { CoreError, CoreErrorCode } from "../core/errors.js";
import { HITL_URI } from "../core/uris.js";

export const RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  hitlUnknown: -32010,
  hitlInvalid: -32011,
} as const;

const TABLE: Record<CoreErrorCode, { code: number; hitl?: boolean; message?: string }> = {
  envelope_rejected: { code: RPC.invalidParams },
  invalid_params: { code: RPC.invalidParams },
  task_not_found: { code: RPC.taskNotFound },
  task_not_cancelable: { code: RPC.taskNotCancelable },
  hitl_unknown: { code: RPC.hitlUnknown, hitl: true, message: "hitl_already_answered_or_unknown" },
  hitl_invalid: { code: RPC.hitlInvalid, hitl: true, message: "hitl_response_invalid" },
  busy: { code: RPC.internal },
  shutting_down: { code: RPC.internal },
};

export function toRpcError(error: CoreError): JSONRPCErrorException {
  const row = TABLE[error.code];
  const data = row.hitl ? { extension: HITL_URI, ...error.data } : { ...error.data };
  return new JSONRPCErrorException(row.message ?? error.message, row.code, data);
}
