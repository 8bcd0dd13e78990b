// `serve --http` against what needs no token (docs/security.md, "Hostile requests"): a --token-file that is not a
// regular file is refused at once, and idle connections that never send a byte cannot lock out the client that
// holds the token.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FIXTURES, runCli } from "../helpers/cli.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";

describe("serve --http --token-file <not a regular file>", () => {
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-token-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("a FIFO is refused at once with exit 2 and the reason, without waiting for a writer", async () => {
    const fifo = join(dir, "fifo");
    execFileSync("mkfifo", [fifo]);
    const result = await runCli(["serve", "--http", "--port", "0", "--workspace", FIXTURES, "--token-file", fifo], {
      timeoutMs: 15_000,
    });
    assert.equal(result.signal, null, "it exited by itself, not by the test's timeout");
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /expected --token-file .*fifo to be a regular file, found a FIFO/);
    assert.equal(result.stdout, "", "it never listened");
  });

  it("a directory is refused the same way", async () => {
    const result = await runCli(["serve", "--http", "--port", "0", "--workspace", FIXTURES, "--token-file", dir]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /to be a regular file, found a directory/);
  });
});

describe("serve --http: idle connections that never send a byte", () => {
  let server: HttpServer;
  const sockets: Socket[] = [];
  after(async () => {
    for (const socket of sockets) socket.destroy();
    await server?.close();
  });

  /** Opens a connection that sends nothing; resolves once it is connected. */
  const idle = (url: URL) =>
    new Promise<Socket>((resolve, reject) => {
      const socket = connect(Number(url.port), url.hostname, () => resolve(socket));
      socket.on("error", () => {});
      socket.once("error", reject);
      sockets.push(socket);
    });

  it("1100 of them (over the server's 1000 connections) do not keep the client with the token out", async () => {
    server = await startHttp();
    const url = new URL(server.url);
    const closedByServer: Promise<void>[] = [];
    for (let i = 0; i < 1100; i++) {
      const socket = await idle(url);
      closedByServer.push(new Promise((resolve) => socket.once("close", () => resolve())));
    }
    // The client with the token is served while the idle ones are still open (or were closed to make room).
    const t0 = Date.now();
    const task = await server.call("tasks/list", {});
    assert.ok(Array.isArray(task.tasks), JSON.stringify(task));
    assert.ok(Date.now() - t0 < 5000, `answered in ${Date.now() - t0} ms`);
    // The idle ones are all closed by the server: the oldest to make room, the rest after their first 3 s.
    await Promise.all(closedByServer);
    const answer = await server.fetch("/healthz");
    assert.equal(answer.status, 200, "and the server still serves");
  });
});
