// The HTTP+JSON binding (A2A 1.0 §11): the routes below the interface URL, google.rpc.Status errors, SSE streams.

import {
  type CallOptions,
  type Driver,
  type DriverConfig,
  type Json,
  type Op,
  parseJson,
  type StreamOp,
  type WireError,
} from "./driver.js";
import { type EventOutcome, HttpDriver, jsonOutcome, type Outcome, statusError } from "./driver-http.js";
import { brief, type SseEvent } from "./http.js";

function errorOf(status: number, text: string): WireError {
  const body = parseJson(text);
  const error = body.ok ? body.value?.error : undefined;
  if (typeof error !== "object" || error === null)
    return { httpStatus: status, message: `not a google.rpc.Status body: ${brief(text)}` };
  return statusError(status, error);
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

  protected requestOf(op: Op | StreamOp, params: Json, options: CallOptions, accept: string) {
    const route = this.route(op, params);
    const headers = this.headersOf(options, accept);
    if (route.body !== undefined) headers["Content-Type"] = "application/json";
    return { url: this.url + route.path, init: { method: route.method, headers, body: route.body } };
  }

  protected outcomeOf(status: number, text: string): Outcome {
    return status === 200 ? jsonOutcome(status, text) : { error: errorOf(status, text) };
  }

  protected eventOutcomeOf(event: SseEvent, value: Json): EventOutcome {
    return event.event === "error" || value?.error !== undefined
      ? { error: errorOf(200, event.data) }
      : { item: value };
  }

  protected refusalOf(status: number, text: string): WireError {
    return errorOf(status, text);
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
}
