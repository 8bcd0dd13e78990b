// The JSON-RPC binding (A2A 1.0 §9): POST to the interface URL, the 1.0 method names, SSE for the streams.

import {
  type Answer,
  type CallOptions,
  type Driver,
  detailsOf,
  type Json,
  type Op,
  parseJson,
  type StreamAnswer,
  type StreamOp,
  type StreamOptions,
  type WireError,
} from "./driver.js";
import { answerOf, commonHeaders, HttpDriver, readStream } from "./driver-http.js";
import { brief, request } from "./http.js";

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

  private init(method: string, params: Json, options: CallOptions, accept: string): RequestInit {
    const headers = { "Content-Type": "application/json", ...commonHeaders(this.config, options, accept) };
    const id = options.jsonrpcId ?? nextId++;
    return { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) };
  }

  async call(op: Op, params: Json, options: CallOptions = {}): Promise<Answer> {
    const answer = await request(this.url, this.init(op, params, options, "application/json"), this.config.timeoutMs);
    const out = answerOf(answer);
    const body = parseJson(answer.text);
    if (!body.ok) {
      out.error = { httpStatus: answer.status, message: `not JSON (${body.problem}): ${brief(answer.text)}` };
      return out;
    }
    // 401, 403 and 413 are answered at the HTTP level with a google.rpc.Status body.
    if (body.value?.error !== undefined && body.value?.jsonrpc === undefined) {
      out.error = {
        httpStatus: answer.status,
        message: brief(body.value.error),
        ...detailsOf(body.value.error?.details),
      };
      if (typeof body.value.error?.status === "string") out.error.status = body.value.error.status;
    } else if (body.value?.error !== undefined) out.error = errorOf(body.value.error, answer.status);
    else if (body.value && "result" in body.value) out.result = body.value.result;
    else out.error = { httpStatus: answer.status, message: `neither a result nor an error: ${brief(body.value)}` };
    return out;
  }

  stream(op: StreamOp, params: Json, options: StreamOptions = {}): Promise<StreamAnswer> {
    return readStream(
      this.url,
      this.init(op, params, options, "text/event-stream"),
      this.config,
      options,
      (_event, value) => (value?.error !== undefined ? { error: errorOf(value.error, 200) } : { item: value?.result }),
      (status, text) => {
        const call = parseJson(text);
        return call.ok && call.value?.error
          ? errorOf(call.value.error, status)
          : { httpStatus: status, message: `not a stream: ${brief(text)}` };
      },
    );
  }
}
