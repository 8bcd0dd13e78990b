// The HTTP server in-process, with short limits so that time-based defences are seen quickly (CONTRACT 8.1, 8.4):
// slow and idle clients are cut off, too many connections are refused, idle streams get comments.
import assert from "node:assert/strict";
import type { Server } from "node:http";
import { connect, type Socket } from "node:net";
import { after, before, describe, it } from "node:test";
import { createApp } from "../../src/http/app.js";
import { allowedHosts } from "../../src/http/hosts.js";
import { createHttpServer, listen, type ServerLimits } from "../../src/http/server.js";
import { createServeRoot, type ServeRoot } from "../../src/serve/serve-root.js";
import { FIXTURES } from "../helpers/cli.js";

const LIMITS: ServerLimits = {
  headersTimeoutMs: 400,
  requestTimeoutMs: 800,
  keepAliveTimeoutMs: 300,
  checkIntervalMs: 100,
  maxConnections: 8,
};
const TOKEN = "unit-test-token";

/** Resolves with what the server sent and how long until it closed the socket (or rejects after `ms`). */
function closedWithin(socket: Socket, ms: number): Promise<{ text: string; after: number }> {
  const t0 = Date.now();
  let text = "";
  socket.setEncoding("utf8");
  socket.on("data", (chunk: string) => {
    text += chunk;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${ms} ms; got ${JSON.stringify(text)}`)), ms);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve({ text, after: Date.now() - t0 });
    });
    socket.on("error", () => {});
  });
}

/** Resolves once `socket` has sent text that matches `pattern` (or rejects after `ms`): the text so far. */
function sent(socket: Socket, pattern: RegExp, ms: number): Promise<string> {
  let text = "";
  socket.setEncoding("utf8");
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} after ${ms} ms; got ${JSON.stringify(text)}`)), ms);
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (!pattern.test(text)) return;
      clearTimeout(timer);
      resolve(text);
    });
  });
}

describe("the HTTP server: limits and idle streams (in-process)", () => {
  let runtime: ServeRoot;
  let server: Server;
  let port: number;
  const open = () => connect(port, "127.0.0.1");
  /** The server's side of each connection it took and has not yet seen close. */
  const taken = new Set<Socket>();
  const changed: Array<() => void> = [];
  /** Resolves once the server holds exactly `count` connections. */
  async function holding(count: number): Promise<void> {
    while (taken.size !== count) await new Promise<void>((resolve) => changed.push(resolve));
  }

  before(async () => {
    const made = await createServeRoot({ workspace: FIXTURES, maxConcurrent: 2, version: "0.0.0" }, () => {});
    assert.ok(!("error" in made));
    runtime = made;
    const hosts = new Set<string>();
    const app = createApp({
      methods: runtime.methods,
      operations: runtime.operations,
      version: "0.0.0",
      instanceId: runtime.dispatcher.instanceId,
      allowedHosts: hosts,
      allowOrigins: [],
      token: TOKEN,
      maxBodyBytes: 1024,
      log: () => {},
      keepAliveMs: 150,
    });
    server = createHttpServer(app, LIMITS);
    server.on("connection", (socket: Socket) => {
      taken.add(socket);
      for (const told of changed.splice(0)) told();
      socket.once("close", () => {
        taken.delete(socket);
        for (const told of changed.splice(0)) told();
      });
    });
    port = await listen(server, 0, "127.0.0.1");
    for (const host of allowedHosts("127.0.0.1", port)) hosts.add(host);
  });
  after(async () => {
    await runtime.dispatcher.shutdown();
    server.closeAllConnections();
    server.close();
  });

  it("a client that never finishes its headers is cut off (slowloris)", async () => {
    const socket = open();
    socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    const timer = setInterval(() => socket.write("X-Slow: 1\r\n"), 100);
    try {
      const { text } = await closedWithin(socket, 3000);
      assert.match(text, /^HTTP\/1\.1 408/);
    } finally {
      clearInterval(timer);
    }
  });

  it("a client that never finishes its body is cut off", async () => {
    const socket = open();
    socket.write(
      `POST /a2a/jsonrpc HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
        "Content-Type: application/json\r\nContent-Length: 500\r\n\r\n{",
    );
    const timer = setInterval(() => socket.write(" "), 100);
    try {
      const { text } = await closedWithin(socket, 3000);
      assert.match(text, /^HTTP\/1\.1 408/);
    } finally {
      clearInterval(timer);
    }
  });

  it("an idle keep-alive connection is closed", async () => {
    const socket = open();
    socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const { text, after } = await closedWithin(socket, 3000);
    assert.match(text, /^HTTP\/1\.1 200/);
    assert.ok(after >= LIMITS.keepAliveTimeoutMs - 50, `closed after ${after} ms`);
  });

  it("a connection that sends nothing is closed", async () => {
    await closedWithin(open(), 3000);
  });

  it("past maxConnections, further connections are refused", async () => {
    await holding(0);
    const held = Array.from({ length: LIMITS.maxConnections }, open);
    await holding(LIMITS.maxConnections);
    try {
      const extra = open();
      const { text } = await closedWithin(extra, 1000);
      assert.equal(text, "");
    } finally {
      for (const socket of held) socket.destroy();
      // The server counts them gone once it has seen them close.
      await holding(0);
    }
  });

  it("an idle stream gets a comment line while nothing happens", async () => {
    const task = runtime.dispatcher.submit({
      analysis: (await import("../../src/a2a/input-file.js")).analyzeSendParams({
        message: {
          role: "user",
          parts: [{ kind: "text", text: "hang" }],
          metadata: {
            "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1": {
              adapter: "sandbox-agent-runner",
              mode: "plan",
              command: [
                "node",
                ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
                "--request",
                ".aiwg/ops/runs/req.json",
              ],
              working_dir: "pid-hang",
              timeout_seconds: 30,
            },
          },
        },
      }),
      hitlActivated: false,
    });
    const socket = open();
    // Chunked framing sits between events: `\r\n<size>\r\n` precedes each.
    const text = sent(socket, /\n: keep-alive\n\n/, 2000);
    socket.write(
      `GET /a2a/rest/tasks/${task.id}:subscribe HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`,
    );
    assert.match(await text, /^HTTP\/1\.1 200/);
    assert.match(await text, /\r\n\r\n[\s\S]*data: \{"task"[\s\S]*\n: keep-alive\n\n/);
    runtime.dispatcher.cancel(task.id);
    await runtime.dispatcher.settled(task.id);
    socket.destroy();
  });
});
