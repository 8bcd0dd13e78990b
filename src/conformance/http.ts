// HTTP as a careful client speaks it to an untrusted server: every request has a deadline, every body and every
// stream a byte limit, and an SSE stream an item limit (docs/security.md, "What a server sends is data").
import { printable } from "../core/printable.js";

/** The largest answer body read; more is a failure of the server, not memory spent. */
export const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** The most items read from one stream. */
export const MAX_STREAM_ITEMS = 10_000;

export interface HttpAnswer {
  status: number;
  headers: Headers;
  text: string;
}

/** `value` shown in a line: JSON, control characters escaped, at most `max` characters. */
export function brief(value: unknown, max = 300): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? String(value));
  const safe = printable(text);
  return safe.length > max ? `${safe.slice(0, max)}… (${safe.length} characters)` : safe;
}

/** Reads a body up to `limit` bytes; more is an error. */
export async function readBounded(response: Response, limit = MAX_BODY_BYTES): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`the answer is larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder("utf-8", { fatal: false }).decode(Buffer.concat(chunks));
}

/** One request, its whole answer read, within `timeoutMs`. */
export async function request(url: string, init: RequestInit, timeoutMs: number): Promise<HttpAnswer> {
  const response = await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(timeoutMs) });
  return { status: response.status, headers: response.headers, text: await readBounded(response) };
}

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: string;
}

export interface SseRead {
  status: number;
  headers: Headers;
  /** The body, when the answer is not a stream (an error answered before the first item). */
  text?: string;
  events: SseEvent[];
}

/**
 * Reads an SSE stream until it ends, `stop(event)` says so (the reader then disconnects), or the deadline; the
 * items so far are kept either way. A stream that goes past the limits is cut and said so.
 */
export async function readSse(
  url: string,
  init: RequestInit,
  timeoutMs: number,
  stop: (event: SseEvent, all: SseEvent[]) => boolean = () => false,
): Promise<SseRead> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error(`no end of the stream within ${timeoutMs} ms`)), timeoutMs);
  try {
    const response = await fetch(url, { ...init, redirect: "manual", signal: controller.signal });
    if (!(response.headers.get("content-type") ?? "").startsWith("text/event-stream"))
      return { status: response.status, headers: response.headers, text: await readBounded(response), events: [] };
    const events: SseEvent[] = [];
    const reader = response.body?.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    let size = 0;
    let current: { event: string; id: string | undefined; data: string[] } = {
      event: "message",
      id: undefined,
      data: [],
    };
    const finish = async () => {
      controller.abort();
      await reader?.cancel().catch(() => {});
    };
    while (reader) {
      // A stream cut at the deadline is an error (its reason): the items so far do not make it whole.
      const chunk = await reader.read();
      if (chunk.done || chunk.value === undefined) break;
      size += chunk.value.byteLength;
      if (size > MAX_BODY_BYTES) throw new Error(`the stream sent more than ${MAX_BODY_BYTES} bytes`);
      buffer += decoder.decode(chunk.value, { stream: true });
      let newline = buffer.search(/\r?\n|\r/);
      while (newline >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
        newline = buffer.search(/\r?\n|\r/);
        if (line === "") {
          if (current.data.length > 0) {
            const event = { event: current.event, id: current.id, data: current.data.join("\n") };
            events.push(event);
            if (events.length > MAX_STREAM_ITEMS)
              throw new Error(`the stream sent more than ${MAX_STREAM_ITEMS} items`);
            if (stop(event, events)) {
              await finish();
              return { status: response.status, headers: response.headers, events };
            }
          }
          current = { event: "message", id: undefined, data: [] };
          continue;
        }
        if (line.startsWith(":")) continue;
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") current.data.push(value);
        else if (field === "event") current.event = value;
        else if (field === "id") current.id = value;
      }
    }
    return { status: response.status, headers: response.headers, events };
  } finally {
    clearTimeout(timer);
  }
}
