// `serve --http` start-up and its defences over real sockets (CONTRACT 8.1, 8.2): the start line and the token,
// bearer authentication, the Host and Origin checks, CORS, body limits and media types.
import assert from "node:assert/strict";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { assertV1, card10 } from "../helpers/a2a-schema.js";
import { FIXTURES, runCli } from "../helpers/cli.js";
import { assertStatus, type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { tempDir } from "../helpers/state-dir.js";

/** Routes under /a2a/ with a request each would take. */
const A2A_ROUTES: Array<[string, string, unknown?]> = [
  ["POST", "/a2a/jsonrpc", { jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }],
  ["POST", "/a2a/jsonrpc/", { jsonrpc: "2.0", id: 1, method: "tasks/list", params: {} }],
  ["POST", "/a2a/rest/message:send", send10("hi")],
  ["POST", "/a2a/rest/message:stream", send10("hi")],
  ["GET", "/a2a/rest/tasks"],
  ["GET", "/a2a/rest/tasks/some-id"],
  ["POST", "/a2a/rest/tasks/some-id:cancel"],
  ["GET", "/a2a/rest/tasks/some-id:subscribe"],
  ["POST", "/a2a/rest/tasks/some-id:subscribe"],
  ["GET", "/a2a/rest/tasks/some-id/pushNotificationConfigs"],
  ["GET", "/a2a/rest/extendedAgentCard"],
];
// The console's page and assets need no token either (CONTRACT section 10), but pass the same checks.
const OPEN_ROUTES = ["/.well-known/agent-card.json", "/healthz", "/", "/assets/console.js"];

describe("serve --http: start line, card, health", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server?.close();
  });

  it("prints one JSON line: url, agentCard and the tokenFile, which holds a 256-bit token with mode 0600", () => {
    const { url, agentCard, tokenFile } = server.start;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(agentCard, `${url}/.well-known/agent-card.json`);
    assert.ok(tokenFile);
    assert.equal(statSync(tokenFile).mode & 0o777, 0o600);
    assert.equal(statSync(join(tokenFile, "..")).mode & 0o077, 0, "the token's directory is private");
    assert.equal(Buffer.from(server.token as string, "base64url").length, 32);
    assert.ok(!server.stderr.includes(server.token as string), "the token is never logged");
  });

  it("the agent card needs no token: a 1.0 card with the 0.3 fields, an ETag and Cache-Control; 304 when unchanged", async () => {
    const answer = await server.fetch("/.well-known/agent-card.json", { noAuth: true });
    assert.equal(answer.status, 200, answer.text);
    assert.match(String(answer.headers["content-type"]), /^application\/json/);
    assert.match(String(answer.headers["cache-control"]), /max-age=\d+/);
    const etag = String(answer.headers.etag);
    assert.match(etag, /^"[^"]+"$/);
    const card = answer.body;
    assertV1("Agent Card", card10(card));
    const base = server.url;
    assert.deepEqual(card.supportedInterfaces, [
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: `${base}/a2a/rest`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: `${base}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ]);
    assert.equal(card.url, `${base}/a2a/jsonrpc`);
    assert.equal(card.preferredTransport, "JSONRPC");
    assert.equal(card.protocolVersion, "0.3.0");
    assert.deepEqual(card.capabilities.streaming, true);
    assert.deepEqual(card.securitySchemes, { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } });
    assert.deepEqual(card.securityRequirements, [{ schemes: { bearer: { list: [] } } }]);
    const again = await server.fetch("/.well-known/agent-card.json", {
      noAuth: true,
      headers: { "If-None-Match": etag },
    });
    assert.equal(again.status, 304);
    assert.equal(again.text, "");
    assert.equal(again.headers.etag, etag);
    // Reached as localhost, the card names localhost.
    const local = await server.fetch("/.well-known/agent-card.json", {
      noAuth: true,
      headers: { Host: `localhost:${new URL(base).port}` },
    });
    assert.equal(local.body.url, `http://localhost:${new URL(base).port}/a2a/jsonrpc`);
  });

  it("/healthz needs no token", async () => {
    const answer = await server.fetch("/healthz", { noAuth: true });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { status: "ok" });
  });

  it("an unknown route is 404 with a google.rpc.Status body", async () => {
    assertStatus(await server.fetch("/a2a/rest/nothing-here"), 404, "NOT_FOUND");
    assertStatus(await server.fetch("/a2a/rest/tasks/x:cancel"), 404, "NOT_FOUND");
  });
});

describe("serve --http: bearer token, Host, Origin", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server?.close();
  });

  it("every /a2a/ route without a token: 401, WWW-Authenticate: Bearer, UNAUTHENTICATED", async () => {
    for (const [method, path, body] of A2A_ROUTES) {
      const answer = await server.fetch(path, { method, body, noAuth: true });
      assertStatus(answer, 401, "UNAUTHENTICATED");
      assert.match(String(answer.headers["www-authenticate"]), /^Bearer\b/, `${method} ${path}`);
    }
  });

  it("a wrong token, another scheme, or a token of the wrong length: 401", async () => {
    const token = server.token as string;
    const wrong = [
      `Bearer ${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`,
      `Bearer ${token}x`,
      "Bearer x",
      `Basic ${Buffer.from(`user:${token}`).toString("base64")}`,
      `bearer  ${token} extra`,
      "Bearer",
    ];
    for (const authorization of wrong) {
      const answer = await server.fetch("/a2a/rest/tasks", { noAuth: true, headers: { Authorization: authorization } });
      assertStatus(answer, 401, "UNAUTHENTICATED");
      assert.match(String(answer.headers["www-authenticate"]), /^Bearer\b/);
    }
  });

  it("the right token: every route answers (no 401/403)", async () => {
    for (const [method, path, body] of A2A_ROUTES) {
      const answer = await server.fetch(path, { method, body });
      assert.ok(![401, 403].includes(answer.status), `${method} ${path}: ${answer.status} ${answer.text}`);
    }
  });

  it("a Host that does not name the server: 403 on every route, token or not", async () => {
    const port = new URL(server.url).port;
    for (const host of ["evil.example", `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`, "127.0.0.1"]) {
      for (const path of OPEN_ROUTES)
        assertStatus(await server.fetch(path, { headers: { Host: host } }), 403, "PERMISSION_DENIED");
      for (const [method, path, body] of A2A_ROUTES) {
        const answer = await server.fetch(path, { method, body, headers: { Host: host } });
        assertStatus(answer, 403, "PERMISSION_DENIED");
      }
    }
  });

  it("on loopback, localhost, 127.0.0.1 and [::1] with the port are accepted", async () => {
    const port = new URL(server.url).port;
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
      const answer = await server.fetch("/a2a/rest/tasks", { headers: { Host: host } });
      assert.equal(answer.status, 200, `${host}: ${answer.text}`);
    }
  });

  it("an Origin not allowed: 403 on every route; no CORS headers anywhere", async () => {
    // The server's own origin is allowed (the console's requests carry it: test/e2e/console-http.test.ts); the same
    // host on another port is another origin.
    for (const origin of ["https://evil.example", "null", server.url.replace(/:\d+$/, ":1")]) {
      for (const path of OPEN_ROUTES) {
        const answer = await server.fetch(path, { headers: { Origin: origin } });
        assertStatus(answer, 403, "PERMISSION_DENIED");
        assert.equal(answer.headers["access-control-allow-origin"], undefined);
      }
      for (const [method, path, body] of A2A_ROUTES)
        assertStatus(await server.fetch(path, { method, body, headers: { Origin: origin } }), 403, "PERMISSION_DENIED");
      const preflight = await server.fetch("/a2a/jsonrpc", {
        method: "OPTIONS",
        noAuth: true,
        headers: { Origin: origin, "Access-Control-Request-Method": "POST" },
      });
      assert.equal(preflight.status, 403);
    }
    const plain = await server.fetch("/a2a/rest/tasks");
    for (const name of Object.keys(plain.headers)) assert.ok(!name.startsWith("access-control-"), name);
  });
});

describe("serve --http: bodies", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--max-body-bytes", "2048"]);
  });
  after(async () => {
    await server?.close();
  });

  it("a body over --max-body-bytes: 413 RESOURCE_EXHAUSTED on JSON-RPC and REST, declared or chunked", async () => {
    const big = send10("x".repeat(4096));
    const rpc = { jsonrpc: "2.0", id: 1, method: "SendMessage", params: big };
    assertStatus(await server.fetch("/a2a/jsonrpc", { method: "POST", body: rpc }), 413, "RESOURCE_EXHAUSTED");
    assertStatus(
      await server.fetch("/a2a/rest/message:send", { method: "POST", body: big }),
      413,
      "RESOURCE_EXHAUSTED",
    );
    const chunked = { "Transfer-Encoding": "chunked" };
    assertStatus(
      await server.fetch("/a2a/jsonrpc", { method: "POST", body: rpc, headers: chunked }),
      413,
      "RESOURCE_EXHAUSTED",
    );
    // Just under the limit is taken.
    const small = await server.fetch("/a2a/rest/message:send", { method: "POST", body: send10("x".repeat(1500)) });
    assert.equal(small.status, 200, small.text);
    const smallChunked = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: send10("y".repeat(1500)),
      headers: chunked,
    });
    assert.equal(smallChunked.status, 200, smallChunked.text);
    assert.equal(smallChunked.body.task.artifacts[0].parts[0].text, `${"y".repeat(1500)}\n`);
  });

  it("REST: a body that is not JSON by its Content-Type is 415 with CONTENT_TYPE_NOT_SUPPORTED (CONTRACT 8.1: refused before it is read)", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx", undefined]) {
      const headers: Record<string, string> = type ? { "Content-Type": type } : {};
      const text = JSON.stringify(send10("hi"));
      const answer = await server.fetch("/a2a/rest/message:send", {
        method: "POST",
        body: Buffer.from(text),
        headers: type ? headers : { "Content-Type": "" },
      });
      assertStatus(answer, 415, "INVALID_ARGUMENT");
      assert.equal(answer.body.error.details[0].reason, "CONTENT_TYPE_NOT_SUPPORTED", type);
    }
    for (const type of [
      "application/json",
      "application/json; charset=utf-8",
      "application/a2a+json",
      "Application/JSON;charset=UTF-8",
    ]) {
      const answer = await server.fetch("/a2a/rest/message:send", {
        method: "POST",
        body: JSON.stringify(send10("hi")),
        headers: { "Content-Type": type },
      });
      assert.equal(answer.status, 200, `${type}: ${answer.text}`);
    }
  });

  it("JSON-RPC: a body that is not JSON by its Content-Type is -32005 at HTTP 200, in the method family's shape", async () => {
    const v10 = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ListTasks", params: {} }),
      headers: { "Content-Type": "text/plain" },
    });
    assert.equal(v10.status, 200);
    assert.equal(v10.body.id, 7);
    assert.equal(v10.body.error.code, -32005);
    assert.equal(v10.body.error.data[0].reason, "CONTENT_TYPE_NOT_SUPPORTED");
    const v03 = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "tasks/list", params: {} }),
      headers: { "Content-Type": "text/plain" },
    });
    assert.equal(v03.body.id, 8);
    assert.equal(v03.body.error.code, -32005);
    assert.ok(!Array.isArray(v03.body.error.data));
  });
});

describe("serve --http: CORS for an allowed origin", () => {
  let server: HttpServer;
  const origin = "https://app.example:8443";
  before(async () => {
    server = await startHttp(["--allow-origin", origin, "--allow-origin", "http://other.example"]);
  });
  after(async () => {
    await server?.close();
  });

  it("a preflight is answered without a token, with the methods and headers a client needs", async () => {
    const answer = await server.fetch("/a2a/jsonrpc", {
      method: "OPTIONS",
      noAuth: true,
      headers: {
        Origin: origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, a2a-extensions",
      },
    });
    assert.equal(answer.status, 204, answer.text);
    assert.equal(answer.headers["access-control-allow-origin"], origin);
    assert.match(String(answer.headers["access-control-allow-methods"]), /POST/);
    const allowed = String(answer.headers["access-control-allow-headers"]).toLowerCase();
    for (const name of ["authorization", "content-type", "a2a-extensions", "a2a-version"])
      assert.ok(allowed.includes(name));
    assert.match(String(answer.headers.vary), /Origin/);
  });

  it("a request from the allowed origin gets its CORS headers; another origin is still 403", async () => {
    const answer = await server.fetch("/a2a/rest/tasks", { headers: { Origin: origin } });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.headers["access-control-allow-origin"], origin);
    assert.match(String(answer.headers["access-control-expose-headers"]), /A2A-Extensions/);
    assert.match(String(answer.headers.vary), /Origin/);
    const unauthenticated = await server.fetch("/a2a/rest/tasks", { headers: { Origin: origin }, noAuth: true });
    assert.equal(unauthenticated.status, 401);
    assertStatus(
      await server.fetch("/a2a/rest/tasks", { headers: { Origin: "https://evil.example" } }),
      403,
      "PERMISSION_DENIED",
    );
  });
});

describe("serve --http: start options", () => {
  const serveArgs = ["serve", "--http", "--port", "0", "--workspace", FIXTURES];

  it("--no-auth on an address other hosts can reach is refused: exit 2, saying why", async () => {
    const result = await runCli([...serveArgs, "--host", "0.0.0.0", "--no-auth"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--no-auth is refused on 0\.0\.0\.0/);
    assert.equal(result.stdout, "");
  });

  it("--no-auth on loopback: tokenFile null, requests need no token", async () => {
    const server = await startHttp(["--no-auth"]);
    try {
      assert.equal(server.start.tokenFile, null);
      const answer = await server.fetch("/a2a/rest/tasks", { noAuth: true });
      assert.equal(answer.status, 200, answer.text);
    } finally {
      await server.close();
    }
  });

  it("--token-file: that token, and tokenFile names the file; ADAPTER_COMMAND_TOKEN: tokenFile null", async () => {
    const dir = tempDir("token");
    const file = join(dir, "token");
    writeFileSync(file, "file-token-0123456789\n", { mode: 0o600 });
    const fromFile = await startHttp(["--token-file", file]);
    try {
      assert.equal(fromFile.start.tokenFile, file);
      assert.equal(fromFile.token, "file-token-0123456789");
      assert.equal((await fromFile.fetch("/a2a/rest/tasks")).status, 200);
    } finally {
      await fromFile.close();
    }
    const fromEnv = await startHttp([], { ADAPTER_COMMAND_TOKEN: "env-token-abcdef" });
    try {
      assert.equal(fromEnv.start.tokenFile, null);
      fromEnv.token = "env-token-abcdef";
      assert.equal((await fromEnv.fetch("/a2a/rest/tasks")).status, 200);
      assert.equal((await fromEnv.fetch("/a2a/rest/tasks", { noAuth: true })).status, 401);
      assert.ok(!fromEnv.stderr.includes("env-token-abcdef"));
    } finally {
      await fromEnv.close();
    }
  });

  it("--state-dir: a fresh token in DIR/token, mode 0600, a new one at each start", async () => {
    const dir = tempDir("state");
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = await startHttp(["--state-dir", dir]);
      try {
        assert.equal(server.start.tokenFile, join(dir, "token"));
        assert.equal(statSync(join(dir, "token")).mode & 0o777, 0o600);
        tokens.push(readFileSync(join(dir, "token"), "utf8").trim());
      } finally {
        await server.close();
      }
    }
    assert.notEqual(tokens[0], tokens[1]);
  });

  it("a token file holding no token, or characters a bearer token cannot have: exit 2", async () => {
    const dir = tempDir("token");
    for (const [name, text] of [
      ["empty", "\n"],
      ["spaces", "two words\n"],
    ] as const) {
      writeFileSync(join(dir, name), text, { mode: 0o600 });
      const result = await runCli([...serveArgs, "--token-file", join(dir, name)]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /token/);
    }
    const missing = await runCli([...serveArgs, "--token-file", join(dir, "missing")]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /ENOENT/);
  });

  it("a port already taken: exit 2, saying so", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const result = await runCli(["serve", "--http", "--port", String(port), "--workspace", FIXTURES]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /already taken/);
      assert.equal(result.stdout, "");
    } finally {
      blocker.close();
    }
  });

  it("serve takes exactly one of --stdio and --http, and only its own options: else exit 2", async () => {
    for (const args of [
      ["serve"],
      ["serve", "--stdio", "--http"],
      ["serve", "--stdio", "--port", "0"],
      ["serve", "--stdio", "--no-auth"],
      ["serve", "--http", "--max-line-bytes", "100"],
      ["serve", "--http", "--port", "70000"],
      ["serve", "--http", "--allow-origin", "https://app.example/path"],
      ["serve", "--http", "--allow-origin", "*"],
    ]) {
      const result = await runCli(args);
      assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assert.equal(result.stdout, "", args.join(" "));
    }
  });
});
