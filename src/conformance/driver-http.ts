// What the two HTTP bindings (JSON-RPC and HTTP+JSON) share: the driver's frame (URL, token, nothing to close), a
// call and a stream as HTTP requests, the headers every request carries, a google.rpc.Status body as an error, and
// a stream of SSE events read into a StreamAnswer. Each binding says how it routes a call, how an answer's body is a
// result or an error, and how one event's JSON is an item or an error.

import {
  type Answer,
  type CallOptions,
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
import { brief, readSse, request, type SseEvent } from "./http.js";

/** A call's decoded answer: its result, or the error it stands for. */
export type Outcome = { result: Json } | { error: WireError };

/** One event's JSON: the item it carries, or the error the stream ended with. */
export type EventOutcome = { item: Json } | { error: WireError };

/** The frame of a driver that speaks HTTP to the interface at `url` (by default the card's URL as it is). */
export abstract class HttpDriver {
  readonly url: string;
  readonly token: string | undefined;

  constructor(
    protected readonly config: DriverConfig,
    url = config.url,
  ) {
    this.token = config.token;
    this.url = url;
  }

  /** The URL and request of `op`; `accept` is the media type asked for (JSON, or SSE for a stream). */
  protected abstract requestOf(
    op: Op | StreamOp,
    params: Json,
    options: CallOptions,
    accept: string,
  ): { url: string; init: RequestInit };

  /** What a call's answer (its HTTP status and body) stands for. */
  protected abstract outcomeOf(status: number, text: string): Outcome;

  /** What one event of a stream stands for. */
  protected abstract eventOutcomeOf(event: SseEvent, value: Json): EventOutcome;

  /** The error of an answer to a stream request that is not a stream. */
  protected abstract refusalOf(status: number, text: string): WireError;

  async call(op: Op, params: Json, options: CallOptions = {}): Promise<Answer> {
    const { url, init } = this.requestOf(op, params, options, "application/json");
    const answer = await request(url, init, this.config.timeoutMs);
    const out: Answer = { status: answer.status, headers: headerObject(answer.headers), raw: answer.text };
    return Object.assign(out, this.outcomeOf(answer.status, answer.text));
  }

  /** Reads the stream until it ends, an event is an error, or `options.until` holds. */
  async stream(op: StreamOp, params: Json, options: StreamOptions = {}): Promise<StreamAnswer> {
    const { url, init } = this.requestOf(op, params, options, "text/event-stream");
    const items: Json[] = [];
    const ids: (string | undefined)[] = [];
    let error: WireError | undefined;
    const read = await readSse(url, init, this.config.timeoutMs, (event) => {
      const data = parseJson(event.data);
      if (!data.ok) {
        error = { message: `an event that is not JSON: ${brief(event.data)}` };
        return true;
      }
      const outcome = this.eventOutcomeOf(event, data.value);
      if ("error" in outcome) {
        error = outcome.error;
        return true;
      }
      items.push(outcome.item);
      ids.push(event.id);
      return options.until?.(items) ?? false;
    });
    const out: StreamAnswer = { status: read.status, headers: headerObject(read.headers), items, ids };
    if (read.text !== undefined) out.error = this.refusalOf(read.status, read.text);
    else if (error) out.error = error;
    return out;
  }

  /** Accept, A2A-Version, the bearer token and A2A-Extensions, as every request of an HTTP binding sends them. */
  protected headersOf(options: CallOptions, accept: string): Record<string, string> {
    const headers: Record<string, string> = { Accept: accept, "A2A-Version": options.version ?? "1.0" };
    if (this.token !== undefined) headers.Authorization = `Bearer ${this.token}`;
    const extensions = extensionsOf(this.config, options);
    if (extensions !== undefined) headers["A2A-Extensions"] = extensions;
    return headers;
  }

  close(): void {}
}

/** A google.rpc.Status (`error` of a REST body, and of JSON-RPC's HTTP-level refusals) as a WireError. */
export function statusError(httpStatus: number, error: Json): WireError {
  return {
    httpStatus,
    ...(typeof error?.status === "string" ? { status: error.status } : {}),
    message: typeof error?.message === "string" ? error.message : brief(error),
    ...detailsOf(error?.details),
  };
}

/** A body that must be JSON: its value as the result, or an error saying it is not JSON. */
export function jsonOutcome(status: number, text: string): Outcome {
  const body = parseJson(text);
  return body.ok
    ? { result: body.value }
    : { error: { httpStatus: status, message: `not JSON (${body.problem}): ${brief(text)}` } };
}
