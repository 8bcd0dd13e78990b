// JSON-RPC error codes of JSON-RPC 2.0, A2A (0.3 and 1.0) and hitl-prompt/v1: one list for both versions.
export const A2A_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  serverBusy: -32000,
  taskNotFound: -32001,
  taskNotCancelable: -32002,
  pushNotSupported: -32003,
  unsupportedOperation: -32004,
  contentTypeNotSupported: -32005,
  extendedCardNotConfigured: -32007,
  extensionSupportRequired: -32008,
  versionNotSupported: -32009,
  hitlUnknown: -32010,
  hitlInvalid: -32011,
  idempotencyKeyReused: -32422,
} as const;

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}
