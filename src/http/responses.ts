// How every HTTP answer is written: JSON bodies with the media type the client accepts, and refusals as a
// google.rpc.Status body (CONTRACT 8.3).
import type { Context } from "hono";
import { httpError, type RestError } from "../a2a/v1_0/errors.js";
import { valueJson } from "../operations/json-text.js";

const A2A_JSON = "application/a2a+json";

/** `application/a2a+json` when the request's Accept asks for it, else `application/json`. */
function jsonType(c: Context): string {
  const accept = c.req.header("accept");
  return accept?.toLowerCase().includes(A2A_JSON) ? A2A_JSON : "application/json";
}

/** A JSON answer from ready JSON text. */
export function jsonText(c: Context, text: string, status = 200, headers: Record<string, string> = {}): Response {
  return c.body(text, status as 200, { "Content-Type": jsonType(c), ...headers });
}

export function json(c: Context, value: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return jsonText(c, valueJson(value), status, headers);
}

/** An error answer in google.rpc.Status shape. */
export function statusAnswer(error: RestError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.body), {
    status: error.http,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/** An HTTP-level refusal (401, 403, 404, 413, 500...). */
export function refusal(http: number, status: string, message: string, headers: Record<string, string> = {}) {
  return statusAnswer({ http, body: httpError(http, status, message) }, headers);
}

export function notFound(c: Context): Response {
  return refusal(404, "NOT_FOUND", `nothing answers ${c.req.method} ${c.req.path}`);
}
