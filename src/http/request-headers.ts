// A request header as Hono's `c.req.header(name)` gives it, read from node's own parse of the headers where that is
// the same value: the node adapter answers some names (host, authorization, content-type, content-length) by a scan
// of the raw headers at every read, which cost 4-5 % of a GetTask (docs/benchmarks.md, "Where the cost is").
// Node keeps the first of a repeated host, authorization or content-type where Hono joins them all, so a request
// that names any header twice is read through Hono, as before: the checks see the same values either way.
import type { IncomingMessage } from "node:http";
import type { Context } from "hono";

/** The request last asked about, and whether its header names are each written once (a request is asked ~10 times). */
let lastIncoming: IncomingMessage | undefined;
let lastOnce = false;

function namesOnce(incoming: IncomingMessage): boolean {
  if (lastIncoming === incoming) return lastOnce;
  let names = 0;
  for (const _ in incoming.headers) names++;
  lastIncoming = incoming;
  lastOnce = 2 * names === incoming.rawHeaders.length;
  return lastOnce;
}

/** The header `name` (lower case) of the request, or undefined when it has none: `c.req.header(name)`'s value. */
export function headerOf(c: Context, name: string): string | undefined {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming === undefined || !("rawHeaders" in incoming) || !namesOnce(incoming)) return c.req.header(name);
  const value = incoming.headers[name];
  return typeof value === "string" ? value : value === undefined ? undefined : c.req.header(name);
}
