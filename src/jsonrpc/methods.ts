// The JSON-RPC face of the operations table (src/operations/table.ts): the operations of both families by name, their
// failures answered as the family's JSON-RPC errors (CONTRACT 5.3, 7.1). Every JSON-RPC binding (stdio, HTTP) uses
// it, through the one handler (src/jsonrpc/handler.ts), which takes a batch apart and gives it one request at a time.
// A request goes straight to the operation of its name: json-rpc-2.0's server machinery (its middleware chain and
// generator-based awaits) cost more than the call of a kept answer (docs/benchmarks.md, "Where the cost is"); the
// answers are the ones that server gave, in its shapes (json-rpc-2.0's models).
import {
  createJSONRPCErrorResponse,
  createJSONRPCSuccessResponse,
  isJSONRPCID,
  isJSONRPCRequest,
  JSONRPCErrorCode,
  type JSONRPCRequest,
  type JSONRPCResponse,
} from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import { closest } from "../core/edit-distance.js";
import type { CallContext } from "../operations/context.js";
import { rpcErrorOfFailure } from "../operations/rpc-failure.js";
import type { Operation, Operations } from "../operations/table.js";

/** What json-rpc-2.0 answered for a method that threw something without a message, with its default code. */
const UNEXPECTED = { code: 0, message: "An unexpected error occurred" };

export class JsonRpcMethods {
  private readonly byName: ReadonlyMap<string, Operation>;
  private readonly names: readonly string[];

  constructor(operations: Operations) {
    this.byName = new Map(operations.all.map((operation) => [operation.name, operation]));
    this.names = operations.all.map((operation) => operation.name);
  }

  /** The answer to one request (never a batch), or null for a notification that is answered with nothing. */
  async receive(request: JSONRPCRequest, context: CallContext): Promise<JSONRPCResponse | null> {
    if (!isJSONRPCRequest(request)) {
      const { id } = request as { id?: unknown };
      return createJSONRPCErrorResponse(
        isJSONRPCID(id) ? id : null,
        JSONRPCErrorCode.InvalidRequest,
        "Invalid Request",
      );
    }
    const operation = this.byName.get(request.method);
    if (operation === undefined) return this.unknownMethod(request);
    const { id } = request;
    let result: unknown;
    try {
      result = await operation.call(request.params, context);
    } catch (error) {
      if (id === undefined) return null;
      let failure: { code: number; message?: string; data?: unknown };
      try {
        failure = rpcErrorOfFailure(operation.family, error as Parameters<typeof rpcErrorOfFailure>[1]);
      } catch (fault) {
        failure = { ...UNEXPECTED, message: (fault as Error | undefined)?.message ?? UNEXPECTED.message };
      }
      return createJSONRPCErrorResponse(id, failure.code, failure.message ?? "", failure.data);
    }
    return id === undefined ? null : createJSONRPCSuccessResponse(id, result);
  }

  /** -32601 that names what was asked for and, when one is a few letters off or in another case, the method meant. */
  private unknownMethod(request: JSONRPCRequest): JSONRPCResponse {
    const found = JSON.stringify(request.method).slice(0, 200);
    const meant = closest(request.method, this.names);
    const hint = meant ? `; did you mean "${meant}"?` : "";
    return createJSONRPCErrorResponse(
      request.id ?? null,
      A2A_CODES.methodNotFound,
      `Method not found: ${found}${hint}`,
    );
  }
}

export function createMethods(operations: Operations): JsonRpcMethods {
  return new JsonRpcMethods(operations);
}
