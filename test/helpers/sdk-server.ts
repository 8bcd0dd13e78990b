// The official @a2a-js/sdk server (express, DefaultRequestHandler, no authentication) on loopback, with the executor
// and the extensions a test gives it: an A2A server that is not ours, for the client and the conformance suite.
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AgentCard } from "@a2a-js/sdk";
import { type AgentExecutor, DefaultRequestHandler, InMemoryTaskStore } from "@a2a-js/sdk/server";
import { jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

/** What the tests use of express (installed for the SDK's server, without type declarations). */
interface App {
  get(path: string, handler: (req: unknown, res: { json(body: unknown): void }) => void): void;
  use(path: string, handler: unknown): void;
  listen(port: number, host: string): Server;
}
const express = (await import("express" as string)).default as () => App;

export interface SdkServer {
  /** `http://127.0.0.1:PORT`: the card at /.well-known/agent-card.json, JSON-RPC at /jsonrpc, HTTP+JSON at /rest. */
  base: string;
  close(): void;
}

export async function startSdkServer(options: {
  name: string;
  description: string;
  extensions: string[];
  executor: AgentExecutor;
}): Promise<SdkServer> {
  const app = express();
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const card = AgentCard.fromJSON({
    name: options.name,
    description: options.description,
    version: "1.0.0",
    supportedInterfaces: [
      { url: `${base}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
    ],
    capabilities: { streaming: true, extensions: options.extensions.map((uri) => ({ uri })) },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  });
  const requestHandler = new DefaultRequestHandler(card, new InMemoryTaskStore(), options.executor);
  app.get("/.well-known/agent-card.json", (_req, res) => res.json(AgentCard.toJSON(card)));
  app.use("/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  return {
    base,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
