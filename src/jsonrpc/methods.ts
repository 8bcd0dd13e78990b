// The JSON-RPC face of the operations table (src/operations/table.ts): one json-rpc-2.0 server whose methods are the
// operations of both families by name, their failures answered as the family's JSON-RPC errors (CONTRACT 5.3, 7.1).
// Every JSON-RPC binding (stdio, HTTP) uses it.
import { createJSONRPCErrorResponse, JSONRPCErrorException, type JSONRPCRequest, JSONRPCServer } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import { closest } from "../core/edit-distance.js";
import type { CallContext } from "../operations/context.js";
import { rpcErrorOfFailure } from "../operations/rpc-failure.js";
import type { Operations } from "../operations/table.js";

export function createMethods(operations: Operations): JSONRPCServer<CallContext> {
  // Errors are answered to the client; the library need not print them too.
  const server = new JSONRPCServer<CallContext>({ errorListener: () => {} });
  for (const operation of operations.all) {
    server.addMethod(operation.name, async (params, context) => {
      try {
        return await operation.call(params, context);
      } catch (error) {
        const failure = error as Parameters<typeof rpcErrorOfFailure>[1];
        const { code, message, data } = rpcErrorOfFailure(operation.family, failure);
        throw new JSONRPCErrorException(message, code, data);
      }
    });
  }
  server.handleMethodNotFound = unknownMethod(operations.all.map((operation) => operation.name));
  return server;
}

/** -32601 that names what was asked for and, when one is a few letters off or in another case, the method meant. */
function unknownMethod(names: readonly string[]) {
  return async (request: JSONRPCRequest) => {
    const found = JSON.stringify(request.method).slice(0, 200);
    const meant = closest(request.method, names);
    const hint = meant ? `; did you mean "${meant}"?` : "";
    return createJSONRPCErrorResponse(
      request.id ?? null,
      A2A_CODES.methodNotFound,
      `Method not found: ${found}${hint}`,
    );
  };
}
