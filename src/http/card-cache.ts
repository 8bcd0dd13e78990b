// Conditional GETs of the agent card (CONTRACT 8.2): `Last-Modified` beside the `ETag`, and 304 on a matching
// `If-None-Match` (Hono's etag middleware) or, when there is none, on an `If-Modified-Since` no older than the card.
import type { MiddlewareHandler } from "hono";
import { etag, RETAINED_304_HEADERS } from "hono/etag";

/** What a 304 keeps of the answer it stands for (RFC 9110 §15.4.5). */
const KEPT = ["cache-control", "etag", "last-modified", "vary", "date"];

/**
 * The card's middlewares, for a card that last changed at `changedAt` (it changes only with a new process; the
 * ETag tells one Host's card from another's). HTTP dates have whole seconds, so the time is cut to its second.
 */
export function cardCaching(changedAt: Date): MiddlewareHandler[] {
  const seconds = Math.floor(changedAt.getTime() / 1000) * 1000;
  const lastModified = new Date(seconds).toUTCString();
  const conditional: MiddlewareHandler = async (c, next) => {
    await next();
    if (c.res.status !== 200 && c.res.status !== 304) return;
    if (c.res.status === 200 && notModifiedSince(c.req.header("if-modified-since"), c.req.header("if-none-match"))) {
      const headers = new Headers();
      for (const name of KEPT) {
        const value = c.res.headers.get(name);
        if (value !== null) headers.set(name, value);
      }
      await c.res.body?.cancel();
      c.res = undefined as unknown as Response;
      c.res = new Response(null, { status: 304, headers });
    }
    c.res.headers.set("Last-Modified", lastModified);
  };
  /** RFC 9110 §13.1.3: only without If-None-Match, and only a valid date not in the future. */
  const notModifiedSince = (since: string | undefined, noneMatch: string | undefined): boolean => {
    if (since === undefined || noneMatch !== undefined) return false;
    const at = Date.parse(since);
    return !Number.isNaN(at) && at <= Date.now() && seconds <= at;
  };
  return [conditional, etag({ retainedHeaders: [...RETAINED_304_HEADERS, "last-modified"] })];
}
