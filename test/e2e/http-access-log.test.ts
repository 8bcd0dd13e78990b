// `serve --http` writes one access line per request on stderr (method, path, status, time), never the token nor a
// query value; `--quiet` silences it (CONTRACT 8.1).
import assert from "node:assert/strict";
import { once } from "node:events";
import { after, describe, it } from "node:test";
import { runCli } from "../helpers/cli.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";

/** Waits for stderr to hold a line matching `pattern` (stderr arrives on its own pipe, after the answer). */
async function lineOf(server: HttpServer, pattern: RegExp): Promise<string> {
  const until = Date.now() + 10_000;
  for (;;) {
    const line = server.stderr.split("\n").find((l) => pattern.test(l));
    if (line !== undefined) return line;
    if (Date.now() > until) assert.fail(`no line matching ${pattern} in:\n${server.stderr}`);
    await Promise.race([once(server.child.stderr, "data"), new Promise((r) => setTimeout(r, 1000).unref())]);
  }
}

describe("serve --http: the access log", () => {
  const servers: HttpServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });

  it("one line per request: method, path, status and time; no token, no query value", async () => {
    const server = await startHttp();
    servers.push(server);
    await server.fetch("/healthz");
    assert.match(await lineOf(server, /GET \/healthz /), /^adapter-command serve: GET \/healthz 200 \d+\.\d ms$/);
    const secret = "s3cr3t-in-the-query";
    await server.fetch(`/a2a/rest/tasks?status=canceled&token=${secret}`);
    const listed = await lineOf(server, /GET \/a2a\/rest\/tasks/);
    assert.match(listed, /^adapter-command serve: GET \/a2a\/rest\/tasks\?status&token 400 \d+\.\d ms$/);
    await server.fetch("/a2a/rest/tasks", { noAuth: true });
    await lineOf(server, / 401 /);
    await server.fetch("/healthz", { headers: { Host: "evil.example" } });
    await lineOf(server, /GET \/healthz 403 /);
    assert.ok(server.token && !server.stderr.includes(server.token), "the token is never logged");
    assert.ok(!server.stderr.includes(secret), "no query value is logged");
  });

  it("--quiet: no access line, the other logs stay", async () => {
    const server = await startHttp(["--quiet"]);
    servers.push(server);
    await server.fetch("/healthz");
    await server.fetch("/a2a/rest/tasks?pageSize=1");
    await server.close();
    assert.match(server.stderr, /serving A2A on/);
    assert.doesNotMatch(server.stderr, /GET \//);
  });

  it("--quiet belongs to --http: with --stdio it is a usage error", async () => {
    const result = await runCli(["serve", "--stdio", "--quiet"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--quiet cannot be used with --stdio/);
  });
});
