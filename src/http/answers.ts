// How every HTTP answer is written: JSON bodies with the media type the client accepts, and refusals as a
// google.rpc.Status body (CONTRACT 8.3).
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import { httpError, type RestError } from "../a2a/v1_0/errors.js";
import { valueJson } from "../jsonrpc/json-text.js";

const A2A_JSON = "application/a2a+json";

/** `application/a2a+json` when the request's Accept asks for it, else `application/json`. */
export function jsonType(c: Context): string {
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

/** Media types a request body may have (any charset parameter). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase();
  return type === "application/json" || type === A2A_JSON;
}

/** True when the request carries a body: a non-zero Content-Length, or a chunked one. */
export function hasBody(c: Context): boolean {
  const length = c.req.header("content-length");
  if (length !== undefined) return length.trim() !== "0";
  return c.req.header("transfer-encoding") !== undefined;
}

export function notFound(c: Context): Response {
  return refusal(404, "NOT_FOUND", `nothing answers ${c.req.method} ${c.req.path}`);
}

/**
 * The request body as text. Under the node adapter it is read straight from node's IncomingMessage, which costs
 * less than the web Request path; a chunked body has been read already by the body limit (src/http/app.ts).
 */
export async function bodyText(c: Context): Promise<string> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || incoming.readableDidRead || c.req.header("transfer-encoding") !== undefined) return c.req.text();
  // Listeners, not `for await`: an async iterator costs more than the rest of reading a small body.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.once("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    incoming.once("error", reject);
    incoming.once("close", () => {
      if (!incoming.complete) reject(new Error("the client closed the connection before the body's end"));
    });
  });
}
