// `serve --http`: wiring and shutdown only (CONTRACT 8.1). The serve root (src/serve/serve-root.ts) is the one
// `serve --stdio` has; the app holds the routes; the server the socket limits; --grpc-port adds the gRPC binding. Prints one JSON line when listening, logs on stderr, never
// reads stdin.
import type { Server } from "node:http";
import { resolve } from "node:path";
import type { HttpBindings } from "@hono/node-server";
import { EXIT } from "../exit-codes.js";
import { type GrpcServer, listenGrpc } from "../grpc/server.js";
import type { Io } from "../io/io.js";
import { createServeRoot, maxAnswerBytesOf, type ServeRootOptions } from "../serve/serve-root.js";
import { createApp } from "./app.js";
import { UntrustedConnections } from "./connections.js";
import { parseOrigin } from "./guards.js";
import { allowedHosts, baseUrl, isLoopback } from "./hosts.js";
import { createHttpServer, listen, OpenAnswers } from "./server.js";
import { obtainToken, type Token, TokenError } from "./token.js";

export interface HttpServeOptions extends ServeRootOptions {
  host: string;
  port: number;
  tokenFile?: string;
  /** False with --no-auth. */
  auth: boolean;
  allowOrigin: string[];
  maxBodyBytes: number;
  /** No access line per request. */
  quiet?: boolean;
  /** `--grpc-port`: also serve the gRPC binding there (0 picks a free port); none without it. */
  grpcPort?: number;
}

// With the 1 s the binary allows for open handles after that, the server exits within the 5 s of CONTRACT 8.1.
const SHUTDOWN_LIMIT_MS = 3500;

/** The problem with the options, in words, or undefined when they can be used. */
function usageProblem(options: HttpServeOptions): string | undefined {
  if (!options.auth && !isLoopback(options.host))
    return `--no-auth is refused on ${options.host}: without a token, only a loopback host (127.0.0.1, ::1, localhost) may be used`;
  if (!options.auth && options.tokenFile !== undefined) return "--no-auth and --token-file contradict each other";
  const bad = options.allowOrigin.find((origin) => parseOrigin(origin) === undefined);
  if (bad !== undefined) return `--allow-origin expects an origin such as https://app.example:8443, found "${bad}"`;
  return undefined;
}

function listenProblem(error: NodeJS.ErrnoException, options: HttpServeOptions): string {
  const where = `${options.host}:${options.port}`;
  if (error.code === "EADDRINUSE") return `cannot listen on ${where}: the port is already taken`;
  if (error.code === "EACCES") return `cannot listen on ${where}: permission denied`;
  if (error.code === "EADDRNOTAVAIL" || error.code === "ENOTFOUND")
    return `cannot listen on ${where}: no such address on this machine`;
  return `cannot listen on ${where}: ${error.message}`;
}

export async function serveHttp(options: HttpServeOptions, io: Io): Promise<number> {
  const log = (line: string) => io.stderr.write(`adapter-command serve: ${line}\n`);
  const problem = usageProblem(options);
  if (problem) {
    log(problem);
    return EXIT.usage;
  }
  // The gRPC port is taken first, so the operations table and its cards name it from the start.
  let grpc: GrpcServer | undefined;
  if (options.grpcPort !== undefined) {
    try {
      grpc = await listenGrpc({
        host: options.host,
        port: options.grpcPort,
        maxBodyBytes: options.maxBodyBytes,
        maxAnswerBytes: maxAnswerBytesOf(options),
      });
    } catch (error) {
      log(listenProblem(error as NodeJS.ErrnoException, { ...options, port: options.grpcPort }));
      return EXIT.usage;
    }
  }
  const closeGrpc = () => void grpc?.close(0);
  const root = await createServeRoot({ ...options, binding: "http", ...(grpc ? { grpcPort: grpc.port } : {}) }, log);
  if ("error" in root) {
    log(root.error);
    closeGrpc();
    return root.exitCode;
  }
  let token: Token | undefined;
  if (options.auth) {
    try {
      token = obtainToken({
        ...(options.tokenFile === undefined ? {} : { tokenFile: options.tokenFile }),
        ...(options.stateDir === undefined ? {} : { stateDir: options.stateDir }),
      });
    } catch (error) {
      log(error instanceof TokenError ? error.message : `cannot write the token: ${(error as Error).message}`);
      closeGrpc();
      root.close();
      return EXIT.usage;
    }
    for (const warning of token.warnings) log(warning);
  }
  const { dispatcher, methods, operations } = root;
  const hosts = new Set<string>();
  const app = createApp({
    methods,
    operations,
    version: options.version,
    instanceId: dispatcher.instanceId,
    runtime: root.runtimeCard,
    signer: root.signer,
    allowedHosts: hosts,
    allowOrigins: options.allowOrigin.map((origin) => parseOrigin(origin) as string),
    token: token?.value,
    maxBodyBytes: options.maxBodyBytes,
    maxBehindBytes: root.operator.limits.max_output_bytes,
    maxAnswerBytes: root.maxAnswerBytes,
    log,
    authenticated: (c) => untrusted.trust((c.env as HttpBindings).incoming.socket),
    ...(options.quiet ? {} : { accessLog: log }),
  });
  const server = createHttpServer(app);
  const untrusted = new UntrustedConnections(server);
  const answers = new OpenAnswers(server);
  let port: number;
  try {
    port = await listen(server, options.port, options.host);
  } catch (error) {
    log(listenProblem(error as NodeJS.ErrnoException, options));
    closeGrpc();
    token?.cleanup();
    root.close();
    return EXIT.usage;
  }
  for (const host of allowedHosts(options.host, port)) hosts.add(host);
  const url = baseUrl(options.host, port);
  grpc?.serve({
    operations,
    token: token?.value,
    maxAnswerBytes: root.maxAnswerBytes,
    maxBehindBytes: root.operator.limits.max_output_bytes,
    base: () => url,
    log,
  });
  const grpcUrl = grpc ? `${new URL(url).hostname}:${grpc.port}` : undefined;
  // The console's address carries the token in its fragment, which a browser never sends (CONTRACT section 10).
  const consoleUrl = token ? `${url}/#token=${encodeURIComponent(token.value)}` : `${url}/`;
  const agentCard = `${url}/.well-known/agent-card.json`;
  const started = { url, ...(grpcUrl ? { grpc: grpcUrl } : {}), agentCard, tokenFile: token?.file ?? null };
  io.stdout.write(`${JSON.stringify({ ...started, console: consoleUrl })}\n`);
  log(`containment: ${dispatcher.containmentKind}`);
  log(
    `serving A2A on ${url} (instance ${dispatcher.instanceId}, workspace ${resolve(options.workspace)}, ` +
      `${token ? "bearer token required" : "no authentication"})${grpcUrl ? `, and over gRPC on ${grpcUrl}` : ""}`,
  );

  // A first signal shuts down cleanly; another one while that runs kills every command's group at once.
  let signalled!: () => void;
  const stopped = new Promise<void>((resolve) => (signalled = resolve));
  let first = true;
  const onSignal = () => {
    if (!first) dispatcher.killAll();
    first = false;
    signalled();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  await stopped;
  log("shutting down");
  // Push deliveries of the tasks' last events go out within the same budget; root.close() drops the rest.
  await Promise.all([
    shutdown(server, answers, async () => {
      await dispatcher.shutdown();
      await root.push.idle();
    }),
    grpc?.close(SHUTDOWN_LIMIT_MS),
  ]);
  dispatcher.killAll();
  root.close();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  token?.cleanup();
  return EXIT.ok;
}

/**
 * Stops accepting connections, cancels what runs (the streams send their tasks' final events and end) and waits
 * for open answers; whatever is still open at the limit is cut.
 */
async function shutdown(server: Server, answers: OpenAnswers, stopTasks: () => Promise<void>): Promise<void> {
  answers.closing = true;
  server.close();
  const limit = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_LIMIT_MS).unref());
  await Promise.race([
    (async () => {
      await stopTasks();
      await answers.settled();
    })(),
    limit,
  ]);
  server.closeAllConnections();
}
