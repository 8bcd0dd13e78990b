// The routes of `serve --http` (CONTRACT 8.2) and the checks in front of them, in order: Host and Origin on every
// route (with CORS for allowed origins), then on /a2a/ the bearer token and the body limit (CONTRACT 8.1).
import { Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { etag } from "hono/etag";
import { HTTPException } from "hono/http-exception";
import type { JSONRPCServer } from "json-rpc-2.0";
import { agentCard10 } from "../a2a/card.js";
import type { CallContext } from "../jsonrpc/methods.js";
import { accessLog } from "./access-log.js";
import { notFound, refusal } from "./answers.js";
import { bearer } from "./auth.js";
import { hostGuard, originGuards } from "./guards.js";
import { jsonRpcHandler } from "./jsonrpc.js";
import { restRoutes } from "./rest.js";

export interface AppOptions {
  methods: JSONRPCServer<CallContext>;
  version: string;
  instanceId: string;
  /** Host header values that name this server (src/http/hosts.ts); filled in once the port is known. */
  allowedHosts: Set<string>;
  allowOrigins: readonly string[];
  /** Undefined with --no-auth. */
  token: string | undefined;
  maxBodyBytes: number;
  log(line: string): void;
  /** Where the access lines go (src/http/access-log.ts); none with --quiet. */
  accessLog?: (line: string) => void;
  /** Idle time before an SSE comment (default 15 s). */
  keepAliveMs?: number;
}

/** Cache-Control of the agent card: it changes only with a new process, and its ETag tells when. */
const CARD_CACHE = "public, max-age=60";

/**
 * Bodies over `max` bytes are refused with 413. A declared Content-Length is checked without touching the body,
 * which keeps the request on the adapter's fast path (Hono's bodyLimit would build a full web Request to look);
 * only a chunked body goes through bodyLimit, which counts as it reads.
 */
function limitBodies(max: number): MiddlewareHandler {
  const tooLarge = () => refusal(413, "RESOURCE_EXHAUSTED", `the request body is over the limit of ${max} bytes`);
  const counting = bodyLimit({ maxSize: max, onError: tooLarge });
  return async (c, next) => {
    if (c.req.header("transfer-encoding") !== undefined) return counting(c, next);
    if (Number(c.req.header("content-length") ?? 0) > max) return tooLarge();
    await next();
  };
}

export function createApp(options: AppOptions): Hono {
  const app = new Hono();
  if (options.accessLog) app.use("*", accessLog(options.accessLog));
  app.use("*", hostGuard(options.allowedHosts), ...originGuards(options.allowOrigins));

  app.get("/.well-known/agent-card.json", etag(), (c) => {
    // The Host passed hostGuard: it names this server, as the client reached it.
    const base = `http://${c.req.header("host")?.toLowerCase()}`;
    const card = agentCard10(options.version, options.instanceId, base);
    return c.json(card, 200, { "Cache-Control": CARD_CACHE });
  });
  app.get("/healthz", (c) => c.json({ status: "ok" }));

  if (options.token !== undefined) app.use("/a2a/*", bearer(options.token));
  app.use("/a2a/*", limitBodies(options.maxBodyBytes));
  const routeOptions = {
    methods: options.methods,
    log: options.log,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
  };
  const rpc = jsonRpcHandler(routeOptions);
  app.post("/a2a/jsonrpc", rpc);
  app.post("/a2a/jsonrpc/", rpc);
  app.route("/a2a/rest", restRoutes(routeOptions));

  app.notFound(notFound);
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.log(`internal error answering ${c.req.method} ${c.req.path}: ${error?.stack ?? error}`);
    return refusal(500, "INTERNAL", "internal error");
  });
  return app;
}
