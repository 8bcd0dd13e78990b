// JSON-RPC 2.0 request checks and error answers shared by every binding.
import type { JSONRPCResponse } from "json-rpc-2.0";
import { isRecord } from "../core/json-value.js";

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

/** The members a request may start with before its id: `{"jsonrpc":"2.0","method":"…","id":…`. */
const LEADING_ID =
  /^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*[,}]/;

/** The id of a request whose line was too long to read, when its first bytes show it; otherwise null. */
export function idInHead(head: string): string | number | null {
  const match = LEADING_ID.exec(head);
  if (!match) return null;
  try {
    const id: unknown = JSON.parse(match[1] as string);
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}
