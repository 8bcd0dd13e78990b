// The official @a2a-js/sdk 1.3 server as the GetTask baseline: express, DefaultRequestHandler, InMemoryTaskStore and
// jsonRpcHandler, holding the task of the file given as its argument (a 1.0 Task as JSON). Prints { url }.
import { readFileSync } from "node:fs";
import { AgentCard, Task } from "@a2a-js/sdk";
import { DefaultRequestHandler, InMemoryTaskStore, ServerCallContext } from "@a2a-js/sdk/server";
import { jsonRpcHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import express from "express";

const task = Task.fromJSON(JSON.parse(readFileSync(process.argv[2], "utf8")));
const store = new InMemoryTaskStore();
await store.save(task, new ServerCallContext());

/** Never called: GetTask reads the store. */
const executor = {
  execute: async () => {
    throw new Error("not used by the benchmark");
  },
  cancelTask: async () => {},
};

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
  const requestHandler = new DefaultRequestHandler(card, store, executor);
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  process.stdout.write(`${JSON.stringify({ url: base })}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
