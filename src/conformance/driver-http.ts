// What the two HTTP bindings (JSON-RPC and HTTP+JSON) share: the driver's frame (URL, token, nothing to close),
// the headers every request carries, an answer's raw part, and a stream of SSE events read into a StreamAnswer.
// Each binding says how it routes a call and how one event's JSON is an item or an error.

import {
  type Answer,
  type CallOptions,
  type DriverConfig,
  extensionsOf,
  headerObject,
  type Json,
  parseJson,
  type StreamAnswer,
  type StreamOptions,
  type WireError,
} from "./driver.js";
import { brief, type HttpAnswer, readSse, type SseEvent } from "./http.js";

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

  close(): void {}
}

/** An HTTP answer as a call's Answer, before its result or error is decoded. */
export function answerOf(answer: HttpAnswer): Answer {
  return { status: answer.status, headers: headerObject(answer.headers), raw: answer.text };
}

/** Accept, A2A-Version, the bearer token and A2A-Extensions, as every request of an HTTP binding sends them. */
export function commonHeaders(config: DriverConfig, options: CallOptions, accept: string): Record<string, string> {
  const headers: Record<string, string> = { Accept: accept, "A2A-Version": options.version ?? "1.0" };
  if (config.token !== undefined) headers.Authorization = `Bearer ${config.token}`;
  const extensions = extensionsOf(config, options);
  if (extensions !== undefined) headers["A2A-Extensions"] = extensions;
  return headers;
}

/** One event's JSON: the item it carries, or the error the stream ended with. */
export type EventOutcome = { item: Json } | { error: WireError };

/**
 * Reads the stream until it ends, an event is an error, or `options.until` holds; `refused` decodes the body of
 * an answer that is not a stream.
 */
export async function readStream(
  url: string,
  init: RequestInit,
  config: DriverConfig,
  options: StreamOptions,
  outcomeOf: (event: SseEvent, value: Json) => EventOutcome,
  refused: (status: number, text: string) => WireError,
): Promise<StreamAnswer> {
  const items: Json[] = [];
  const ids: (string | undefined)[] = [];
  let error: WireError | undefined;
  const read = await readSse(url, init, config.timeoutMs, (event) => {
    const data = parseJson(event.data);
    if (!data.ok) {
      error = { message: `an event that is not JSON: ${brief(event.data)}` };
      return true;
    }
    const outcome = outcomeOf(event, data.value);
    if ("error" in outcome) {
      error = outcome.error;
      return true;
    }
    items.push(outcome.item);
    ids.push(event.id);
    return options.until?.(items) ?? false;
  });
  const out: StreamAnswer = { status: read.status, headers: headerObject(read.headers), items, ids };
  if (read.text !== undefined) out.error = refused(read.status, read.text);
  else if (error) out.error = error;
  return out;
}
