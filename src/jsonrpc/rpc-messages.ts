// JSON-RPC 2.0 request checks and error answers shared by every binding.
import type { JSONRPCResponse } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import type { Family } from "../a2a/service-params.js";
import { rpcErrorOf as error03 } from "../a2a/v0_3/errors.js";
import { rpcErrorOf as error10 } from "../a2a/v1_0/errors.js";
import { isRecord } from "../core/envelope/json-value.js";
import type { Problem } from "../core/envelope/problems.js";
import { CoreError } from "../core/errors.js";
import type { GateRefusal } from "../gate/request-gate.js";
import { familyOfMethod } from "../operations/table.js";

const isId = (id: unknown) => id === undefined || id === null || typeof id === "string" || typeof id === "number";

export function errorResponse(id: unknown, code: number, message: string, data?: unknown): JSONRPCResponse {
  const safeId = typeof id === "string" || typeof id === "number" ? id : null;
  return { jsonrpc: "2.0", id: safeId, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** Why a value is not a JSON-RPC request, or undefined when it is one. */
export function notARequest(value: unknown): string | undefined {
  if (!isRecord(value)) return "expected a JSON-RPC request object";
  if (value.jsonrpc !== "2.0") return 'expected "jsonrpc": "2.0"';
  if (typeof value.method !== "string") return "expected a string method";
  if (!isId(value.id)) return "expected an id that is a string, a number or null";
  if (value.params !== undefined && typeof value.params !== "object")
    return "expected params to be an object or an array";
  return undefined;
}

/**
 * The JSON-RPC answer to a body or request the gate refused (src/gate/request-gate.ts), the same on stdio and
 * HTTP: -32700 for bytes that are not UTF-8 or not JSON, -32600 for a body too large or too deep and a key repeated
 * beside the params, -32602 (in the method family's shapes) for a key repeated inside them, -32005 for a media type.
 */
export function refusalResponse(refusal: GateRefusal): JSONRPCResponse {
  const { id, words } = refusal;
  switch (refusal.rule) {
    case "not_utf8":
    case "not_json":
      return errorResponse(null, A2A_CODES.parseError, "Parse error", { detail: words });
    case "too_large":
    case "too_deep":
      return errorResponse(id, A2A_CODES.invalidRequest, "Invalid Request", { detail: words });
    case "duplicate_key": {
      if (!refusal.inParams) return errorResponse(id, A2A_CODES.invalidRequest, "Invalid Request", { detail: words });
      const problem = refusal.problem as Problem;
      const error = new CoreError("invalid_params", words, { errors: [problem] });
      return familyError(id, familyOfMethod(refusal.method), error);
    }
    case "content_type":
      return familyError(id, familyOfMethod(refusal.method), new CoreError("content_type_not_supported", words));
  }
}

/** An error in the shapes of a family. */
export function familyError(id: unknown, family: Family, error: CoreError): JSONRPCResponse {
  const { code, message, data } = (family === "0.3" ? error03 : error10)(error);
  return errorResponse(id, code, message, data);
}
