// The console's only way to the server: the public REST binding under /a2a/rest and its SSE streams, read with
// fetch because the bearer token goes in a header (CONTRACT section 10). Every request activates RUNTIME and
// IDEMPOTENCY (and HITL on sends, so that text-line envelopes may prompt); the token is sent only as
// `Authorization: Bearer`, never in a URL.
import { HITL_URI, IDEMPOTENCY_URI, RUNTIME_URI } from "../core/uris.js";
import { SseParser } from "./sse.js";
import { type Json, record, records } from "./task-fields.js";

/** An error answer in words, with what the page needs to say which one it was. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly http: number,
    /** google.rpc.Status `status`, e.g. `ABORTED`; "NETWORK" when no answer came. */
    readonly status: string,
    /** ErrorInfo `reason` (e.g. `HITL_ALREADY_ANSWERED_OR_UNKNOWN`) and its `metadata`. */
    readonly reason?: string,
    readonly metadata: Record<string, string> = {},
    /** BadRequest field violations: `field` a JSON Pointer into the request's body. */
    readonly violations: Array<{ field: string; description: string; reason: string }> = [],
  ) {
    super(message);
  }
}

function errorOf(http: number, body: unknown): ApiError {
  const error = record(record(body).error);
  const details = records(error.details);
  const info = details.find((detail) => String(detail["@type"]).endsWith("google.rpc.ErrorInfo"));
  const bad = details.find((detail) => String(detail["@type"]).endsWith("google.rpc.BadRequest"));
  const violations = records(bad?.fieldViolations).map((v) => ({
    field: String(v.field ?? ""),
    description: String(v.description ?? ""),
    reason: String(v.reason ?? ""),
  }));
  return new ApiError(
    typeof error.message === "string" ? error.message : `the server answered ${http}`,
    http,
    typeof error.status === "string" ? error.status : String(http),
    typeof info?.reason === "string" ? info.reason : undefined,
    record(info?.metadata) as Record<string, string>,
    violations,
  );
}

export class Api {
  constructor(private readonly token: string | undefined) {}

  private headers(hitl: boolean, body: boolean): Record<string, string> {
    const extensions = [RUNTIME_URI, IDEMPOTENCY_URI, ...(hitl ? [HITL_URI] : [])];
    return {
      Accept: "application/json",
      "A2A-Version": "1.0",
      "A2A-Extensions": extensions.join(", "),
      ...(body ? { "Content-Type": "application/json" } : {}),
      ...(this.token === undefined ? {} : { Authorization: `Bearer ${this.token}` }),
    };
  }

  private async send(path: string, init: RequestInit, hitl: boolean, body: boolean): Promise<Response> {
    try {
      return await fetch(path, {
        ...init,
        headers: this.headers(hitl, body),
        credentials: "omit",
        cache: "no-store",
        referrerPolicy: "no-referrer",
      });
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      throw new ApiError("the server cannot be reached (is `serve --http` still running?)", 0, "NETWORK");
    }
  }

  /** A JSON request; resolves with the answer's JSON, rejects with an ApiError. */
  async json<T = Json>(method: string, path: string, body?: unknown, options: { hitl?: boolean } = {}): Promise<T> {
    const init: RequestInit = { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) };
    const attempt = () => this.send(path, init, options.hitl ?? false, body !== undefined);
    let response: Response;
    try {
      response = await attempt();
    } catch (error) {
      // A send carries a messageId and activates IDEMPOTENCY: one retry of a lost answer never runs it twice.
      if (!(error instanceof ApiError)) throw error;
      response = await attempt();
    }
    const text = await response.text();
    let value: unknown;
    try {
      value = text === "" ? undefined : JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (!response.ok) throw errorOf(response.status, value);
    return value as T;
  }

  /** A SendMessage (answers included). */
  sendMessage(body: unknown): Promise<Json> {
    return this.json("POST", "/a2a/rest/message:send", body, { hitl: true });
  }

  /**
   * Follows a stream (SubscribeToTask): calls `onItem` with each StreamResponse until the stream ends (resolves) or
   * fails (rejects: an ApiError before the first item, or the stream's `event: error`).
   */
  async follow(path: string, onItem: (item: Json) => void, signal: AbortSignal): Promise<void> {
    const response = await this.send(path, { method: "GET", signal }, false, false);
    if (!response.ok || !response.body) {
      const text = await response.text();
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = undefined;
      }
      throw errorOf(response.status, value);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        for (const event of parser.push(value)) {
          const data = JSON.parse(event.data) as Json;
          if (event.event === "error") throw errorOf(500, data);
          onItem(data);
        }
      }
    } finally {
      reader.releaseLock();
    }
  }
}

/** A UUID v4 (crypto.randomUUID exists only in secure contexts; a console reached over a LAN address is not one). */
export function newId(): string {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x40;
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80;
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
