// A reference for GetTask, not a goal: a minimal Hono app on @hono/node-server (the stack `serve --http` stands on)
// that reads each request's body and answers with the same bytes every time. Prints { url } when it listens.
import { readFileSync } from "node:fs";
import { serve } from "@hono/node-server";
import { Hono } from "hono";

const body = readFileSync(process.argv[2], "utf8");
const app = new Hono();
app.post("/a2a/jsonrpc", async (c) => {
  await c.req.text();
  return c.body(body, 200, { "Content-Type": "application/json" });
});
const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${info.port}` })}\n`);
});
server.keepAliveTimeout = 5000;
process.on("SIGTERM", () => server.close(() => process.exit(0)));
