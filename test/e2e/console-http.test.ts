// The console's page and assets over HTTP, without a browser (CONTRACT section 10, 8.1): served without a token with
// the security headers, behind the Host check; the start line's console address; the server's own origin passes the
// Origin check and others do not.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertStatus, type HttpServer, startHttp } from "../helpers/http-server.js";

const PAGES = ["/", "/assets/console.js", "/assets/console.css"];

describe("serve --http: the console's page", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server?.close();
  });

  it("the start line gives the console's address with the token in its fragment", () => {
    assert.equal(server.start.console, `${server.url}/#token=${encodeURIComponent(server.token as string)}`);
  });

  it("serves the page and its assets without a token, each with a strict CSP and the security headers", async () => {
    for (const path of PAGES) {
      const answer = await server.fetch(path, { noAuth: true });
      assert.equal(answer.status, 200, `${path}: ${answer.text}`);
      const csp = String(answer.headers["content-security-policy"]);
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
      assert.equal(answer.headers["x-content-type-options"], "nosniff");
      assert.equal(answer.headers["referrer-policy"], "no-referrer");
      assert.equal(answer.headers["set-cookie"], undefined);
    }
    const page = await server.fetch("/", { noAuth: true });
    assert.match(String(page.headers["content-type"]), /^text\/html/);
    // No inline script or style, and nothing from another origin.
    assert.doesNotMatch(page.text, /<script>|<style|\sstyle=|\son[a-z]+=/i);
    assert.doesNotMatch(page.text, /(src|href)="(https?:)?\/\//);
    const script = await server.fetch("/assets/console.js", { noAuth: true });
    assert.match(String(script.headers["content-type"]), /^text\/javascript/);
    assert.doesNotMatch(script.text, /https?:\/\/(?!agentic-sandbox\.aiwg\.io|www\.w3\.org)[a-z]/i);
  });

  it("the Host check applies to the page", async () => {
    for (const path of PAGES)
      assertStatus(
        await server.fetch(path, { noAuth: true, headers: { Host: "evil.example" } }),
        403,
        "PERMISSION_DENIED",
      );
  });

  it("the server's own origin passes the Origin check; another origin does not", async () => {
    const own = await server.fetch("/a2a/rest/tasks", { headers: { Origin: server.url } });
    assert.equal(own.status, 200, own.text);
    assert.equal(own.headers["access-control-allow-origin"], undefined);
    const send = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      headers: { Origin: server.url },
      body: { message: { messageId: `own-origin-${process.pid}`, role: "ROLE_USER", parts: [{ text: "hi" }] } },
    });
    assert.equal(send.status, 200, send.text);
    // The same port on another name, or another port, is another origin.
    const port = new URL(server.url).port;
    for (const origin of [
      `http://localhost:${port}`,
      `http://127.0.0.1:${Number(port) + 1}`,
      `https://127.0.0.1:${port}`,
    ])
      assertStatus(await server.fetch("/a2a/rest/tasks", { headers: { Origin: origin } }), 403, "PERMISSION_DENIED");
  });
});

describe("serve --http --no-auth: the console's address has no token", () => {
  it("prints the console's address without a fragment", async () => {
    const server = await startHttp(["--no-auth"]);
    try {
      assert.equal(server.start.console, `${server.url}/`);
      assert.equal((await server.fetch("/", { noAuth: true })).status, 200);
    } finally {
      await server.close();
    }
  });
});
