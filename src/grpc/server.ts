// The gRPC server of `serve --http --grpc-port P` (docs/reference.md, "gRPC"): the binding on its own port, on the
// HTTP binding's host (loopback by default), with the HTTP binding's token and limits. Connections come through a
// net server of ours and are handed to grpc-js once they speak, so that they are bounded as HTTP's are
// (docs/security.md, "Over HTTP"): at most 1000 at once; a new one must send its first bytes within 3 s and make a
// call that passes the token check within 5 s of them, and at most 128 may wait to (the oldest is closed first; the
// limits of src/http/connections.ts). Without the second rule, one byte a connection handed a socket to grpc-js for
// its minute of idleness, and 1000 of them locked the token holder out. A request message is at most
// --max-body-bytes, an answer at most the answer bound, and a connection has at most 128 calls open at once; an idle
// one is closed after a minute (a client's channel connects again by itself).
import { createServer, type Socket } from "node:net";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { UntrustedSockets } from "../http/connections.js";
import { DEFAULT_LIMITS } from "../http/server.js";
import { type GrpcBindingOptions, serviceDefinition, serviceImplementation } from "./binding.js";

export interface GrpcServerOptions extends Pick<GrpcBindingOptions, "maxAnswerBytes"> {
  host: string;
  /** 0 picks a free port. */
  port: number;
  maxBodyBytes: number;
}

/** Calls one connection may have open at once (HTTP/2 streams). */
const MAX_CONCURRENT_STREAMS = 128;
const IDLE_CONNECTION_MS = 60_000;
/** How long a connection that spoke has to make a call with the token, before it is closed. */
export const AUTHENTICATED_CALL_MS = 5000;
/** Room past an answer's bound for the message around it. */
const FRAME_ROOM = 64 * 1024;

export interface GrpcServer {
  /** Known before the operations table is made, so the cards name it from the start (src/serve/serve-root.ts). */
  port: number;
  /** Starts answering calls with the binding; `serve --http` announces the port only after. */
  serve(binding: GrpcBindingOptions): void;
  /** Stops taking calls, lets open ones end within `graceMs`, then cuts them. */
  close(graceMs: number): Promise<void>;
}

export async function listenGrpc(options: GrpcServerOptions): Promise<GrpcServer> {
  const untrusted = new UntrustedSockets();
  /** The untrusted sockets by their peer as grpc-js names it on a call (`address:port`, src/grpc/binding.ts). */
  const byPeer = new Map<string, Socket>();
  const peerOf = (socket: Socket) => `${socket.remoteAddress}:${socket.remotePort}`;
  // Once every connection is trusted, a call's peer is not even asked for.
  const trusted = (peerOf: () => string) => {
    if (byPeer.size === 0) return;
    const peer = peerOf();
    const socket = byPeer.get(peer);
    if (!socket) return;
    byPeer.delete(peer);
    untrusted.trust(socket);
  };
  // Before it speaks, a socket is ours alone: closing it touches no HTTP/2 session. Its first bytes are given back
  // to it, and HTTP/2 reads them first. After that, closing it ends its HTTP/2 session, which made no call with
  // the token, so holds nothing of a client's.
  const listener = createServer((socket) => {
    const peer = peerOf(socket);
    byPeer.set(peer, socket);
    socket.once("close", () => {
      if (byPeer.get(peer) === socket) byPeer.delete(peer);
    });
    untrusted.admit(socket);
    socket.once("data", (first) => {
      untrusted.heard(socket, AUTHENTICATED_CALL_MS);
      socket.pause();
      socket.unshift(first);
      injector.injectConnection(socket);
    });
  });
  listener.maxConnections = DEFAULT_LIMITS.maxConnections;
  const server = new Server({
    "grpc.max_receive_message_length": options.maxBodyBytes,
    "grpc.max_send_message_length": options.maxAnswerBytes + FRAME_ROOM,
    "grpc.max_concurrent_streams": MAX_CONCURRENT_STREAMS,
    "grpc.max_connection_idle_ms": IDLE_CONNECTION_MS,
    // channelz (grpc-js's call and socket statistics for its admin service, on by default) counts every call; this
    // server has no admin service to show them (docs/benchmarks.md, "Where the cost is").
    "grpc.enable_channelz": 0,
  });
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const port = await new Promise<number>((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(options.port, options.host, () => {
      listener.off("error", reject);
      const address = listener.address();
      resolve(typeof address === "object" && address ? address.port : options.port);
    });
  });
  const close = (graceMs: number) =>
    new Promise<void>((resolve) => {
      listener.close();
      injector.drain(graceMs);
      const cut = setTimeout(() => {
        injector.destroy();
        server.forceShutdown();
        resolve();
      }, graceMs);
      cut.unref();
      server.tryShutdown(() => {
        clearTimeout(cut);
        injector.destroy();
        resolve();
      });
    });
  const serve = (binding: GrpcBindingOptions) =>
    server.addService(serviceDefinition(), serviceImplementation({ ...binding, authenticated: trusted }));
  return { port, serve, close };
}
