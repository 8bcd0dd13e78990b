// The checks every route passes before anything else (CONTRACT 8.1): the Host names this server (DNS rebinding),
// an Origin is one that --allow-origin lists, and only then CORS headers. docs/security.md.
import type { MiddlewareHandler } from "hono";
import { cors } from "hono/cors";
import { headerOf } from "./request-headers.js";
import { refusal } from "./responses.js";

/** Headers a browser client may send and read (CONTRACT 7.6, 8.3). */
const REQUEST_HEADERS = [
  "Authorization",
  "Content-Type",
  "Accept",
  "A2A-Version",
  "A2A-Extensions",
  "X-A2A-Extensions",
];
const EXPOSED_HEADERS = ["A2A-Extensions", "WWW-Authenticate", "Retry-After", "ETag"];

/** The origin of a `--allow-origin` value (`scheme://host[:port]`), or undefined when it is not one. */
export function parseOrigin(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  return value.replace(/\/$/, "").toLowerCase() === url.origin ? url.origin : undefined;
}

/**
 * The server's own origin: the scheme, host and port it was reached at, which the operator console's requests carry
 * (CONTRACT 8.1, section 10). The Host has passed its check, so it names this server.
 */
function isOwnOrigin(origin: string, host: string | undefined): boolean {
  return host !== undefined && origin.toLowerCase() === `http://${host.toLowerCase()}`;
}

/**
 * The Host check, then the Origin check (one middleware: each level of Hono's chain costs a GetTask about as much
 * as the check itself; docs/benchmarks.md), then, for allowed origins, CORS headers and answers to preflights.
 */
export function guards(allowedHosts: Set<string>, origins: readonly string[]): MiddlewareHandler[] {
  const allowed = new Set(origins);
  const guard: MiddlewareHandler = async (c, next) => {
    const host = headerOf(c, "host")?.toLowerCase();
    if (host === undefined || !allowedHosts.has(host))
      return refusal(403, "PERMISSION_DENIED", `Host ${host ?? "(none)"} does not name this server`);
    const origin = headerOf(c, "origin");
    if (origin !== undefined && !allowed.has(origin.toLowerCase()) && !isOwnOrigin(origin, host))
      return refusal(403, "PERMISSION_DENIED", `Origin ${origin} is not allowed (see --allow-origin)`);
    await next();
  };
  if (allowed.size === 0) return [guard];
  return [
    guard,
    cors({
      origin: (origin) => (allowed.has(origin.toLowerCase()) ? origin : null),
      allowMethods: ["GET", "POST", "DELETE", "OPTIONS"],
      allowHeaders: REQUEST_HEADERS,
      exposeHeaders: EXPOSED_HEADERS,
      maxAge: 600,
    }),
  ];
}
