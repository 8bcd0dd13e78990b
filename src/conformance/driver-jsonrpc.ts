// The JSON-RPC binding (A2A 1.0 §9): POST to the interface URL, the 1.0 method names, SSE for the streams.

import {
  type CallOptions,
  type Driver,
  detailsOf,
  type Json,
  type Op,
  type StreamOp,
  type WireError,
} from "./driver.js";
import { type EventOutcome, HttpDriver, jsonOutcome, type Outcome, statusError } from "./driver-http.js";
import { brief } from "./http.js";

let nextId = 1;

function errorOf(error: Json, httpStatus: number): WireError {
  const base: WireError = {
    httpStatus,
    message: typeof error?.message === "string" ? error.message : brief(error),
    ...detailsOf(error?.data),
  };
  if (typeof error?.code === "number") base.code = error.code;
  if (error?.data !== undefined) base.data = error.data;
  return base;
}

export class JsonRpcDriver extends HttpDriver implements Driver {
  readonly binding = "jsonrpc" as const;

  protected requestOf(method: Op | StreamOp, params: Json, options: CallOptions, accept: string) {
    const headers = { "Content-Type": "application/json", ...this.headersOf(options, accept) };
    const id = options.jsonrpcId ?? nextId++;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    return { url: this.url, init: { method: "POST", headers, body } };
  }

  protected outcomeOf(status: number, text: string): Outcome {
    const body = jsonOutcome(status, text);
    if ("error" in body) return body;
    const value = body.result;
    // 401, 403 and 413 are answered at the HTTP level with a google.rpc.Status body.
    if (value?.error !== undefined && value?.jsonrpc === undefined) return { error: statusError(status, value.error) };
    if (value?.error !== undefined) return { error: errorOf(value.error, status) };
    if (value && "result" in value) return { result: value.result };
    return { error: { httpStatus: status, message: `neither a result nor an error: ${brief(value)}` } };
  }

  protected eventOutcomeOf(_event: unknown, value: Json): EventOutcome {
    return value?.error !== undefined ? { error: errorOf(value.error, 200) } : { item: value?.result };
  }

  protected refusalOf(status: number, text: string): WireError {
    const call = jsonOutcome(status, text);
    return "result" in call && call.result?.error
      ? errorOf(call.result.error, status)
      : { httpStatus: status, message: `not a stream: ${brief(text)}` };
  }
}
