// One access line per request on stderr, as local dev servers print (`GET /healthz 200 0.4 ms`); `--quiet` turns
// it off. Only the method, the path, the names of query parameters (their values may hold anything a client put
// there, a token included), the status and the time to the response's head: never a header, so never the token.
import type { MiddlewareHandler } from "hono";
import { cutText } from "../core/log-field.js";
import { printable } from "../core/printable.js";

/** The longest path written; past it, the line says how much was left out. */
const MAX_PATH = 200;

export function accessLog(write: (line: string) => void): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    await next();
    const ms = (performance.now() - started).toFixed(1);
    write(`${c.req.method} ${requestTarget(c.req.url)} ${c.res.status} ${ms} ms`);
  };
}

/** `/a2a/rest/tasks?status&pageSize`: the path as sent, and the query's names without their values. */
function requestTarget(url: string): string {
  const parsed = new URL(url);
  const path = cutText(parsed.pathname, MAX_PATH);
  const names = [...new Set(parsed.searchParams.keys())].map((name) => name.slice(0, 40));
  return printable(names.length > 0 ? `${path}?${names.join("&")}` : path);
}
