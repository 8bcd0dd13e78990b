// The routes of `serve --http` (CONTRACT 8.2) and the checks in front of them, in order: Host and Origin on every
// route (with CORS for allowed origins), then on /a2a/ the bearer token and the request gate (CONTRACT 8.1).
import { type Context, Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import { agentCard10, type RuntimeCard } from "../a2a/card.js";
import { type CardSigner, signedCard } from "../a2a/card-signature.js";
import { logField } from "../core/log-field.js";
import { DEFAULT_OUTPUT_LIMIT } from "../core/task/dispatcher.js";
import { answerLimitOf } from "../operations/answer-budget.js";
import type { Operations } from "../operations/table.js";
import { accessLog } from "./access-log.js";
import { bearer } from "./auth.js";
import { cardCaching } from "./card-cache.js";
import { consoleRoutes } from "./console/routes.js";
import { gateBodies } from "./gate-bodies.js";
import { guards } from "./guards.js";
import { type JsonRpcOptions, jsonRpcHandler } from "./jsonrpc.js";
import { notFound, refusal } from "./responses.js";
import { restRoutes } from "./rest.js";

export interface AppOptions {
  methods: JsonRpcOptions["methods"];
  /** What the REST routes call (src/operations/table.ts). */
  operations: Operations;
  version: string;
  instanceId: string;
  /** How the card declares the runtime's own extensions (CONTRACT 9). */
  runtime?: RuntimeCard;
  /** Signs the card; its public key is served at /.well-known/jwks.json (docs/reference.md, "Signed cards"). */
  signer?: CardSigner;
  /** Host header values that name this server (src/http/hosts.ts); filled in once the port is known. */
  allowedHosts: Set<string>;
  allowOrigins: readonly string[];
  /** Undefined with --no-auth. */
  token: string | undefined;
  maxBodyBytes: number;
  log(line: string): void;
  /** Told of every request that passed the token check (src/http/connections.ts trusts its connection). */
  authenticated?(c: Context): void;
  /** Where the access lines go (src/http/access-log.ts); none with --quiet. */
  accessLog?: (line: string) => void;
  /** Idle time before an SSE comment (default 15 s). */
  keepAliveMs?: number;
  /** The output a stream's client may fall behind before its stream ends (--max-output-bytes; CONTRACT 8.4). */
  maxBehindBytes?: number;
  /** The bound of an answer and of a batch's answer (docs/reference.md, "Answer size"). */
  maxAnswerBytes?: number;
}

/** Cache-Control of the agent card: it changes only with a new process, and its ETag tells when. */
const CARD_CACHE = "public, max-age=60";

export function createApp(options: AppOptions): Hono {
  const app = new Hono();
  if (options.accessLog) app.use("*", accessLog(options.accessLog));
  app.use("*", ...guards(options.allowedHosts, options.allowOrigins));

  const started = new Date();
  app.use("/.well-known/agent-card.json", ...cardCaching(started));
  app.get("/.well-known/agent-card.json", async (c) => {
    // The Host passed its guard: it names this server, as the client reached it.
    const base = `http://${c.req.header("host")?.toLowerCase()}`;
    const card = agentCard10(options.version, options.instanceId, base, options.runtime);
    return c.json(await signedCard(options.signer, card, base), 200, { "Cache-Control": CARD_CACHE });
  });
  const { signer } = options;
  if (signer) {
    // The key changes only with a new process, as the card does: the same caching.
    app.use("/.well-known/jwks.json", ...cardCaching(started));
    const jwks = JSON.stringify(signer.jwks());
    app.get("/.well-known/jwks.json", (c) =>
      c.body(jwks, 200, { "Content-Type": "application/jwk-set+json", "Cache-Control": CARD_CACHE }),
    );
  }
  app.get("/healthz", (c) => c.json({ status: "ok" }));
  consoleRoutes(app);

  const { authenticated } = options;
  // With a token, the token check tells of the requests that pass it (one middleware less on every request).
  if (options.token !== undefined) app.use("/a2a/*", bearer(options.token, authenticated));
  else if (authenticated)
    app.use("/a2a/*", async (c, next) => {
      authenticated(c);
      await next();
    });
  app.use("/a2a/*", gateBodies(options.maxBodyBytes));
  const routeOptions = {
    log: options.log,
    ...(options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs }),
    maxBehindBytes: options.maxBehindBytes ?? DEFAULT_OUTPUT_LIMIT,
    maxAnswerBytes: options.maxAnswerBytes ?? answerLimitOf(DEFAULT_OUTPUT_LIMIT),
  };
  const rpc = jsonRpcHandler({ ...routeOptions, methods: options.methods });
  app.post("/a2a/jsonrpc", rpc);
  app.post("/a2a/jsonrpc/", rpc);
  app.route("/a2a/rest", restRoutes({ ...routeOptions, operations: options.operations }));

  app.notFound(notFound);
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    options.log(`internal error answering ${c.req.method} ${logField(c.req.path, 200)}: ${error?.stack ?? error}`);
    return refusal(500, "INTERNAL", "internal error");
  });
  return app;
}
