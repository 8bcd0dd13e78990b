// The official @a2a-js/sdk 1.3 server as the GetTask baseline: express, DefaultRequestHandler, InMemoryTaskStore and
// jsonRpcHandler, holding the task of the file given as its argument (a 1.0 Task as JSON). Prints { url }.
import { AgentCard } from "@a2a-js/sdk";
import { DefaultRequestHandler } from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";
import { storeHolding, unusedExecutor } from "./sdk-store.mjs";

const store = await storeHolding(process.argv[2]);

const app = express();
const server = app.listen(0, "127.0.0.1", () => {
  const base = `http://127.0.0.1:${server.address().port}`;
  const card = AgentCard.fromJSON({
    name: "sdk-baseline",
    description: "GetTask baseline",
    version: "1.0.0",
    supportedInterfaces: [{ url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
  });
  const requestHandler = new DefaultRequestHandler(card, store, unusedExecutor);
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`${JSON.stringify({ url: base })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
