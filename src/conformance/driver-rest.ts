// The HTTP+JSON binding (A2A 1.0 §11): the routes below the interface URL, google.rpc.Status errors, SSE streams.

import {
  type Answer,
  type CallOptions,
  type Driver,
  type DriverConfig,
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

function errorOf(status: number, text: string): WireError {
  const body = parseJson(text);
  const error = body.ok ? body.value?.error : undefined;
  if (typeof error !== "object" || error === null)
    return { httpStatus: status, message: `not a google.rpc.Status body: ${brief(text)}` };
  return {
    httpStatus: status,
    ...(typeof error.status === "string" ? { status: error.status } : {}),
    message: typeof error.message === "string" ? error.message : "",
    ...detailsOf(error.details),
  };
}

const path = (id: unknown) => encodeURIComponent(String(id));

/** ListTasks' params as query parameters (camelCase, A2A 1.0 §11.3). */
function query(params: Json): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params ?? {}))
    if (value !== undefined && value !== null) search.set(name, String(value));
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

export class RestDriver extends HttpDriver implements Driver {
  readonly binding = "rest" as const;

  constructor(config: DriverConfig) {
    super(config, config.url.replace(/\/+$/, ""));
  }

  private headers(options: CallOptions, accept: string, body: boolean): Record<string, string> {
    const headers = commonHeaders(this.config, options, accept);
    if (body) headers["Content-Type"] = "application/json";
    return headers;
  }

  private route(op: Op | StreamOp, params: Json): { method: string; path: string; body?: string } {
    switch (op) {
      case "SendMessage":
        return { method: "POST", path: "/message:send", body: JSON.stringify(params) };
      case "SendStreamingMessage":
        return { method: "POST", path: "/message:stream", body: JSON.stringify(params) };
      case "GetTask":
        return {
          method: "GET",
          path: `/tasks/${path(params.id)}${params.historyLength === undefined ? "" : `?historyLength=${params.historyLength}`}`,
        };
      case "ListTasks":
        return { method: "GET", path: `/tasks${query(params)}` };
      case "CancelTask":
        return { method: "POST", path: `/tasks/${path(params.id)}:cancel`, body: "{}" };
      case "SubscribeToTask":
        return { method: "POST", path: `/tasks/${path(params.id)}:subscribe`, body: "{}" };
    }
  }

  async call(op: Op, params: Json, options: CallOptions = {}): Promise<Answer> {
    const route = this.route(op, params);
    const answer = await request(
      this.url + route.path,
      {
        method: route.method,
        headers: this.headers(options, "application/json", route.body !== undefined),
        body: route.body,
      },
      this.config.timeoutMs,
    );
    const out = answerOf(answer);
    if (answer.status !== 200) out.error = errorOf(answer.status, answer.text);
    else {
      const body = parseJson(answer.text);
      if (body.ok) out.result = body.value;
      else out.error = { httpStatus: 200, message: `not JSON (${body.problem}): ${brief(answer.text)}` };
    }
    return out;
  }

  stream(op: StreamOp, params: Json, options: StreamOptions = {}): Promise<StreamAnswer> {
    const route = this.route(op, params);
    return readStream(
      this.url + route.path,
      { method: route.method, headers: this.headers(options, "text/event-stream", true), body: route.body },
      this.config,
      options,
      (event, value) =>
        event.event === "error" || value?.error !== undefined ? { error: errorOf(200, event.data) } : { item: value },
      errorOf,
    );
  }
}
