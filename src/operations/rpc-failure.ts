// An operation's failure that is already in its family's JSON-RPC form: an internal error, or a kept answer's error
// that an earlier version wrote as the first answer's JSON-RPC error (kind "error"; idempotency/v1 now keeps the
// CoreError itself, src/a2a/idempotency.ts). Every binding answers it as it answers the CoreError it stands for:
// JSON-RPC as it is, REST and gRPC by its code and reason.
import { A2A_CODES, type RpcError } from "../a2a/rpc-codes.js";
import type { Family } from "../a2a/service-params.js";
import { rpcErrorOf as error03 } from "../a2a/v0_3/errors.js";
import { rpcErrorOf as error10 } from "../a2a/v1_0/errors.js";
import type { CoreError } from "../core/errors.js";

export class RpcFailure extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }

  /** The error of a fault of ours: its details are logged, never answered. */
  static internal(family: Family): RpcFailure {
    return new RpcFailure({ code: A2A_CODES.internal, message: "Internal error", data: family === "0.3" ? {} : [] });
  }
}

/** The JSON-RPC error of a family that an operation's failure (a rejection of `Operations.call`) stands for. */
export function rpcErrorOfFailure(family: Family, failure: CoreError | RpcFailure): RpcError {
  return failure instanceof RpcFailure ? failure.error : (family === "0.3" ? error03 : error10)(failure);
}
