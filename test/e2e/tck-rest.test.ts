// The A2A TCK's compatibility checks for the HTTP+JSON binding and the agent card (a2aproject/a2a-tck, branch
// 1.0-dev, tests/compatibility/: core_operations/, http_json/, agent_card/), against `serve --http` on /a2a/rest;
// each test is named by the TCK requirement it proves. The push checks (PUSH-*) live with push notifications.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AT_ONCE } from "../helpers/cli.js";
import { assertStatus, type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { restBinding, type TckBinding } from "../helpers/tck-binding.js";
import { tckCoreChecks } from "../helpers/tck-core.js";

// Each check sends tasks of its own (lists filter by their context): they run at once, on a server with a slot for
// every task, so that none waits in submitted behind another check's.
describe("A2A TCK compatibility checks: HTTP+JSON (serve --http, /a2a/rest) and the agent card", {
  concurrency: AT_ONCE,
}, () => {
  let server: HttpServer;
  let binding: TckBinding;
  before(async () => {
    server = await startHttp(["--settle-ms", "100", "--max-concurrent", "64"]);
    binding = restBinding(server);
  });
  after(async () => {
    await server?.close();
  });

  tckCoreChecks(() => binding);

  it("HTTP_JSON-ERR-001 / HTTP_JSON-ERR-002: AIP-193 errors, application/json, code = HTTP status, ErrorInfo in details", async () => {
    const missing = await server.fetch("/a2a/rest/tasks/tck-nonexistent-pd-001");
    const info = assertStatus(missing, 404, "NOT_FOUND");
    assert.deepEqual([info.reason, info.domain], ["TASK_NOT_FOUND", "a2a-protocol.org"]);
    const empty = await server.fetch("/a2a/rest/message:send", { method: "POST", body: {} });
    assert.ok(empty.status >= 400, "CORE-ERR-002: an empty SendMessage body is refused");
  });

  it("HTTP_JSON-STATUS-001: 404 not found, 415 for a text/plain body, 400 for version 99.0, 2xx on success", async () => {
    const body = JSON.stringify(send10("ct"));
    const text = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body,
      headers: { "Content-Type": "text/plain" },
    });
    assert.equal(assertStatus(text, 415, "INVALID_ARGUMENT").reason, "CONTENT_TYPE_NOT_SUPPORTED");
    const version = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: send10("v"),
      headers: { "A2A-Version": "99.0" },
    });
    assert.equal(assertStatus(version, 400, "FAILED_PRECONDITION").reason, "VERSION_NOT_SUPPORTED");
    const ok = await server.fetch("/a2a/rest/message:send", { method: "POST", body: send10("ok") });
    assert.equal(ok.status, 200);
    const cancel = await server.fetch("/a2a/rest/tasks/tck-nonexistent:cancel", { method: "POST", body: {} });
    assert.equal(cancel.status, 404);
  });

  it("HTTP_JSON-SVC-001 / HTTP_JSON-SVC-002 / HTTP_JSON-SSE-001: application/json answers, A2A-Extensions taken, SSE streams", async () => {
    const answer = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: send10("svc"),
      headers: { "A2A-Extensions": "https://example.com/ext/v1,https://example.com/ext/v2" },
    });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers["content-type"]), /^application\/json/);
    const reader = await server.stream("/a2a/rest/message:stream", { method: "POST", body: send10("sse") });
    assert.match(String(reader.headers["content-type"]), /^text\/event-stream/);
    assert.ok((await reader.rest()).length >= 2);
  });

  it("CARD-CACHE-001..003: Cache-Control with max-age, ETag and Last-Modified; 304 on If-None-Match or If-Modified-Since", async () => {
    const card = await server.fetch("/.well-known/agent-card.json", { noAuth: true });
    assert.equal(card.status, 200);
    assert.match(String(card.headers["cache-control"]), /max-age=\d+/);
    const etag = String(card.headers.etag);
    const lastModified = String(card.headers["last-modified"]);
    assert.match(etag, /^"/);
    assert.ok(!Number.isNaN(Date.parse(lastModified)) && Date.parse(lastModified) <= Date.now());
    assert.equal(card.body.capabilities.extendedAgentCard, true);
    const byTag = await server.fetch("/.well-known/agent-card.json", {
      noAuth: true,
      headers: { "If-None-Match": etag },
    });
    assert.deepEqual([byTag.status, byTag.text, byTag.headers.etag], [304, "", etag]);
    assert.equal(byTag.headers["last-modified"], lastModified);
    const byDate = await server.fetch("/.well-known/agent-card.json", {
      noAuth: true,
      headers: { "If-Modified-Since": lastModified },
    });
    assert.deepEqual([byDate.status, byDate.text, byDate.headers.etag], [304, "", etag]);
    assert.match(String(byDate.headers["cache-control"]), /max-age/);
    const older = new Date(Date.parse(lastModified) - 60_000).toUTCString();
    const changed = await server.fetch("/.well-known/agent-card.json", {
      noAuth: true,
      headers: { "If-Modified-Since": older },
    });
    assert.equal(changed.status, 200, "a card newer than the date is sent");
    const otherTag = await server.fetch("/.well-known/agent-card.json", {
      noAuth: true,
      headers: { "If-None-Match": '"other"', "If-Modified-Since": lastModified },
    });
    assert.equal(otherTag.status, 200, "If-None-Match decides when both are given (RFC 9110 §13.2.2)");
  });
});
