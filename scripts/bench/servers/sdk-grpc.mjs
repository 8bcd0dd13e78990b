// The official @a2a-js/sdk 1.3 gRPC server as the gRPC GetTask baseline: grpc-js, grpcService over a
// DefaultRequestHandler and an InMemoryTaskStore holding the task of the file given as its argument (a 1.0 Task as
// JSON), the way a user who wants gRPC would serve it. Prints { url } (host:port, a gRPC target) when it listens.
import { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler } from "@a2a-js/sdk/server";
import { A2AService, grpcService, UserBuilder } from "@a2a-js/sdk/server/grpc";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { storeHolding, unusedExecutor } from "./sdk-store.mjs";

const store = await storeHolding(process.argv[2]);

const server = new Server();
const port = await new Promise((resolve, reject) =>
  server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (error, bound) =>
    error ? reject(error) : resolve(bound),
  ),
);
const card = AgentCard.fromJSON({
  name: "sdk-grpc-baseline",
  description: "gRPC GetTask baseline",
  version: "1.0.0",
  supportedInterfaces: [{ url: `127.0.0.1:${port}`, protocolBinding: "GRPC", protocolVersion: "1.0" }],
  capabilities: { streaming: true },
  defaultInputModes: ["text/plain"],
  defaultOutputModes: ["text/plain"],
  skills: [],
});
const requestHandler = new DefaultRequestHandler(card, store, unusedExecutor);
server.addService(A2AService, grpcService({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
process.stdout.write(`${JSON.stringify({ url: `127.0.0.1:${port}` })}\n`);
process.on("SIGTERM", () => server.tryShutdown(() => process.exit(0)));
