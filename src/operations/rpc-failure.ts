// An operation's failure that is already in its family's JSON-RPC form: a kept answer's error given again under
// idempotency/v1 (CONTRACT 9.1, kept as the first answer's JSON-RPC error), or an internal error. Every binding
// answers it as it answers the CoreError it stands for: JSON-RPC as it is, REST and gRPC by its code and reason.
import { A2A_CODES, type RpcError } from "../a2a/rpc-codes.js";
import type { Family } from "../a2a/service-params.js";

export class RpcFailure extends Error {
  constructor(readonly error: RpcError) {
    super(error.message);
  }

  /** The error of a fault of ours: its details are logged, never answered. */
  static internal(family: Family): RpcFailure {
    return new RpcFailure({ code: A2A_CODES.internal, message: "Internal error", data: family === "0.3" ? {} : [] });
  }
}
