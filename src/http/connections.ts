// Connections that have not yet shown a token are bounded apart from the others (docs/security.md, "Hostile
// requests"): without this, sockets that never send a byte fill the server's connection limit and lock out the
// client that holds the token. A new connection must send a whole request head within a short time, and at most
// `maxUntrusted` connections may wait for their first authenticated request: past that, the oldest is closed, so the
// newest (a real client's) gets its turn. A connection is trusted once one of its requests passed the token check.
// The gRPC listener bounds its connections the same way (src/grpc/server.ts).
import type { Server } from "node:http";
import type { Socket } from "node:net";

export interface UntrustedLimits {
  /** How long a new connection may take to send its first request head. */
  firstRequestMs: number;
  /** Connections without an authenticated request, at most. */
  maxUntrusted: number;
}

export const UNTRUSTED_LIMITS: UntrustedLimits = { firstRequestMs: 3000, maxUntrusted: 128 };

/**
 * Sockets that have not yet shown a token, apart from the others: each must speak within `firstRequestMs`, and at
 * most `maxUntrusted` wait to be trusted (past that, the oldest is closed). The gRPC listener uses it as it is; HTTP
 * through UntrustedConnections below.
 */
export class UntrustedSockets {
  /** Untrusted sockets, oldest first, each with the timer that closes it (undefined once it spoke, without one). */
  private readonly waiting = new Map<Socket, NodeJS.Timeout | undefined>();

  constructor(private readonly limits: UntrustedLimits = UNTRUSTED_LIMITS) {}

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

  /** A new connection: timed, counted, and the oldest untrusted one closed when there are too many. */
  admit(socket: Socket): void {
    this.waiting.set(socket, this.closeAfter(socket, this.limits.firstRequestMs));
    socket.once("close", () => this.trust(socket));
    if (this.waiting.size > this.limits.maxUntrusted) {
      const [oldest] = this.waiting.keys();
      oldest?.destroy();
      if (oldest) this.trust(oldest);
    }
  }

  /**
   * The socket spoke: the first timer has done its job. `thenWithinMs` gives it that long more to be trusted (gRPC,
   * whose calls have no head timeout of their own); without it, it stays counted but untimed.
   */
  heard(socket: Socket, thenWithinMs?: number): void {
    if (!this.waiting.has(socket)) return;
    clearTimeout(this.waiting.get(socket));
    this.waiting.set(socket, thenWithinMs === undefined ? undefined : this.closeAfter(socket, thenWithinMs));
  }

  private closeAfter(socket: Socket, ms: number): NodeJS.Timeout {
    const timer = setTimeout(() => socket.destroy(), ms);
    timer.unref();
    return timer;
  }
}

/** The HTTP server's connections: untrusted until a request passes the token check. */
export class UntrustedConnections extends UntrustedSockets {
  constructor(server: Server, limits: UntrustedLimits = UNTRUSTED_LIMITS) {
    super(limits);
    server.on("connection", (socket: Socket) => this.admit(socket));
    // A whole request head arrived: headersTimeout covers later ones.
    server.prependListener("request", (request) => this.heard(request.socket));
  }
}
