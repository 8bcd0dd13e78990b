// The gRPC server of `serve --http --grpc-port P` (docs/reference.md, "gRPC"): the binding on its own port, on the
// HTTP binding's host (loopback by default), with its token and its limits: a request message as large as a body
// may be (--max-body-bytes), an answer as large as an answer may be, as many calls at once per connection as HTTP/2
// streams allowed here.
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { urlHost } from "../http/hosts.js";
import { type GrpcBindingOptions, serviceDefinition, serviceImplementation } from "./binding.js";

export interface GrpcServerOptions extends GrpcBindingOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  maxBodyBytes: number;
}

/** Calls one connection may have open at once (HTTP/2 streams). */
const MAX_CONCURRENT_STREAMS = 128;
/** Room past an answer's bound for the message around it. */
const FRAME_ROOM = 64 * 1024;

export interface GrpcServer {
  port: number;
  /** Stops taking calls, lets open ones end within `graceMs`, then cuts them. */
  close(graceMs: number): Promise<void>;
}

export async function listenGrpc(options: GrpcServerOptions): Promise<GrpcServer> {
  const server = new Server({
    "grpc.max_receive_message_length": options.maxBodyBytes,
    "grpc.max_send_message_length": options.maxAnswerBytes + FRAME_ROOM,
    "grpc.max_concurrent_streams": MAX_CONCURRENT_STREAMS,
  });
  server.addService(serviceDefinition(), serviceImplementation(options));
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`${urlHost(options.host)}:${options.port}`, ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    );
  });
  const close = (graceMs: number) =>
    new Promise<void>((resolve) => {
      const cut = setTimeout(() => {
        server.forceShutdown();
        resolve();
      }, graceMs);
      cut.unref();
      server.tryShutdown(() => {
        clearTimeout(cut);
        resolve();
      });
    });
  return { port, close };
}
