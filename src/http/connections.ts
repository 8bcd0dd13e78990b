// Connections that have not yet shown a token are bounded apart from the others (docs/security.md, "Hostile
// requests"): without this, sockets that never send a byte fill the server's connection limit and lock out the
// client that holds the token. A new connection must send a whole request head within a short time, and at most
// `maxUntrusted` connections may wait for their first authenticated request: past that, the oldest is closed, so the
// newest (a real client's) gets its turn. A connection is trusted once one of its requests passed the token check.
import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface UntrustedLimits {
  /** How long a new connection may take to send its first request head. */
  firstRequestMs: number;
  /** Connections without an authenticated request, at most. */
  maxUntrusted: number;
}

export const UNTRUSTED_LIMITS: UntrustedLimits = { firstRequestMs: 3000, maxUntrusted: 128 };

export class UntrustedConnections {
  /** Untrusted sockets, oldest first, each with its first-request timer (undefined once a request came). */
  private readonly waiting = new Map<Socket, NodeJS.Timeout | undefined>();

  constructor(
    server: Server,
    private readonly limits: UntrustedLimits = UNTRUSTED_LIMITS,
  ) {
    server.on("connection", (socket: Socket) => this.admit(socket));
    server.prependListener("request", (request) => this.heard(request.socket));
  }

  /** How many connections wait for their first authenticated request. */
  get size(): number {
    return this.waiting.size;
  }

  /** A request on this socket passed the token check: it is bounded only by the server's own limits now. */
  trust(socket: Socket): void {
    if (!this.waiting.has(socket)) return;
    clearTimeout(this.waiting.get(socket));
    this.waiting.delete(socket);
  }

  private admit(socket: Socket): void {
    const timer = setTimeout(() => socket.destroy(), this.limits.firstRequestMs);
    timer.unref();
    this.waiting.set(socket, timer);
    socket.once("close", () => this.trust(socket));
    if (this.waiting.size > this.limits.maxUntrusted) {
      const [oldest] = this.waiting.keys();
      oldest?.destroy();
      if (oldest) this.trust(oldest);
    }
  }

  /** A whole request head arrived: the first-request timer has done its job (headersTimeout covers later ones). */
  private heard(socket: Socket): void {
    if (!this.waiting.has(socket)) return;
    clearTimeout(this.waiting.get(socket));
    this.waiting.set(socket, undefined);
  }
}
