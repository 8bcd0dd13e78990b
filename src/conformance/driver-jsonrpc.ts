// The JSON-RPC binding (A2A 1.0 §9): POST to the interface URL, the 1.0 method names, SSE for the streams.

import {
  type Answer,
  type CallOptions,
  type Driver,
  type DriverConfig,
  detailsOf,
  extensionsOf,
  headerObject,
  type Json,
  type Op,
  parseJson,
  type StreamAnswer,
  type StreamOp,
  type StreamOptions,
  type WireError,
} from "./driver.js";
import { brief, readSse, request } from "./http.js";

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

export class JsonRpcDriver implements Driver {
  readonly binding = "jsonrpc" as const;
  readonly url: string;
  readonly token: string | undefined;

  constructor(private readonly config: DriverConfig) {
    this.token = config.token;
    this.url = config.url;
  }

  private init(method: string, params: Json, options: CallOptions, accept: string): RequestInit {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: accept,
      "A2A-Version": options.version ?? "1.0",
    };
    if (this.config.token !== undefined) headers.Authorization = `Bearer ${this.config.token}`;
    const extensions = extensionsOf(this.config, options);
    if (extensions !== undefined) headers["A2A-Extensions"] = extensions;
    const id = options.jsonrpcId ?? nextId++;
    return { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id, method, params }) };
  }

  async call(op: Op, params: Json, options: CallOptions = {}): Promise<Answer> {
    const answer = await request(this.url, this.init(op, params, options, "application/json"), this.config.timeoutMs);
    const out: Answer = { status: answer.status, headers: headerObject(answer.headers), raw: answer.text };
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

  async stream(op: StreamOp, params: Json, options: StreamOptions = {}): Promise<StreamAnswer> {
    const items: Json[] = [];
    const ids: (string | undefined)[] = [];
    let error: WireError | undefined;
    const read = await readSse(
      this.url,
      this.init(op, params, options, "text/event-stream"),
      this.config.timeoutMs,
      (event) => {
        const data = parseJson(event.data);
        if (!data.ok) {
          error = { message: `an event that is not JSON: ${brief(event.data)}` };
          return true;
        }
        if (data.value?.error !== undefined) {
          error = errorOf(data.value.error, 200);
          return true;
        }
        items.push(data.value?.result);
        ids.push(event.id);
        return options.until?.(items) ?? false;
      },
    );
    const out: StreamAnswer = { status: read.status, headers: headerObject(read.headers), items, ids };
    if (read.text !== undefined) {
      const call = parseJson(read.text);
      out.error =
        call.ok && call.value?.error
          ? errorOf(call.value.error, read.status)
          : { httpStatus: read.status, message: `not a stream: ${brief(read.text)}` };
    } else if (error) out.error = error;
    return out;
  }

  close(): void {}
}
