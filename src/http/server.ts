// The node:http server under the Hono app, with the limits that keep slow or idle clients from holding sockets
// (CONTRACT 8.1, docs/security.md): headers must arrive within 10 s and a whole request within 30 s; an idle
// keep-alive connection is closed after 5 s; at most 1000 connections at once. Answers themselves have no time
// limit: a blocking SendMessage lasts as long as its task, and streams send a comment while idle.
import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import type { Hono } from "hono";

export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** How often node checks connections against the two timeouts above. */
  checkIntervalMs: number;
  maxConnections: number;
}

export const DEFAULT_LIMITS: ServerLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  checkIntervalMs: 1_000,
  maxConnections: 1000,
};

export function createHttpServer(app: Hono, limits: ServerLimits = DEFAULT_LIMITS): Server {
  const server = createAdaptorServer({
    fetch: app.fetch,
    serverOptions: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
    },
  }) as Server;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxConnections = limits.maxConnections;
  return server;
}

/** Listens; resolves with the port (the one picked when asked for 0), rejects with the error (EADDRINUSE...). */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const failed = (error: Error) => reject(error);
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : port);
    });
  });
}

/** Counts answers still being written (streams included), so that shutdown can wait for them. */
export class OpenAnswers {
  private open = 0;
  private waiting: Array<() => void> = [];
  /** Set at shutdown: every later answer asks its client to close the connection. */
  closing = false;

  constructor(server: Server) {
    server.prependListener("request", (_request, response) => {
      this.open += 1;
      if (this.closing) response.setHeader("Connection", "close");
      // One listener for every answer (an answer closes once): nothing is made for each one.
      response.on("close", this.closed);
    });
  }

  private readonly closed = () => {
    this.open -= 1;
    if (this.open === 0) for (const done of this.waiting.splice(0)) done();
  };

  /** Resolves once no answer is open. */
  settled(): Promise<void> {
    if (this.open === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}
