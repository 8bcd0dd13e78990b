// The A2A TCK's compatibility checks for the JSON-RPC binding (a2aproject/a2a-tck, branch 1.0-dev,
// tests/compatibility/: core_operations/ and jsonrpc/), against `serve --http` on /a2a/jsonrpc; each test is named
// by the TCK requirement it proves. The push checks (PUSH-*) live with push notifications.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { AT_ONCE } from "../helpers/cli.js";
import { type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { jsonRpcBinding, type TckBinding } from "../helpers/tck-binding.js";
import { tckCoreChecks } from "../helpers/tck-core.js";

// Each check sends tasks of its own (lists filter by their context): they run at once, on a server with a slot for
// every task, so that none waits in submitted behind another check's.
describe("A2A TCK compatibility checks: JSON-RPC (serve --http, /a2a/jsonrpc)", { concurrency: AT_ONCE }, () => {
  let server: HttpServer;
  let binding: TckBinding;
  before(async () => {
    server = await startHttp(["--settle-ms", "100", "--max-concurrent", "64"]);
    binding = jsonRpcBinding(server);
  });
  after(async () => {
    await server?.close();
  });

  tckCoreChecks(() => binding);

  it("JSONRPC-ERR-001..003: errors are {code, message, data}, A2A codes in -32001..-32099, data an array with ErrorInfo", async () => {
    const response = await server.rpc("GetTask", { id: "tck-nonexistent-err" });
    assert.deepEqual(Object.keys(response.error).sort(), ["code", "data", "message"]);
    assert.equal(response.error.code, -32001);
    assert.ok(Array.isArray(response.error.data));
    const info = response.error.data.find((d: { "@type": string }) => d["@type"].endsWith("google.rpc.ErrorInfo"));
    assert.deepEqual([info.reason, info.domain], ["TASK_NOT_FOUND", "a2a-protocol.org"]);
    const unknown = await server.rpc("NonExistentMethod", {});
    assert.equal(unknown.error.code, -32601, "CORE-ERR-001: an unknown method");
    assert.ok("error" in (await server.rpc("SendMessage", {})), "CORE-ERR-002: a SendMessage without message");
  });

  it("JSONRPC-SSE-002: TaskNotFound -32001, TaskNotCancelable -32002, wrong Content-Type -32005, version -32009", async () => {
    assert.equal((await server.rpc("CancelTask", { id: "tck-nonexistent" })).error.code, -32001);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: send10("ct") });
    const text = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      body,
      headers: { "Content-Type": "text/plain" },
    });
    assert.equal(text.status, 200);
    assert.equal(text.body.error.code, -32005);
    const version = await server.rpc("SendMessage", send10("v"), { "A2A-Version": "99.0" });
    assert.equal(version.error.code, -32009);
    const patch = await server.rpc("SendMessage", send10("v"), { "A2A-Version": "1.0.1" });
    assert.ok(patch.result, "VER-CLIENT-002: a patch number does not change the version");
    const empty = await server.rpc("SendMessage", send10("v"), { "A2A-Version": "" });
    assert.ok(empty.result, "VER-SERVER-003: an empty A2A-Version is no error (the method name decides)");
  });

  it("JSONRPC-FMT-001 / JSONRPC-FMT-002 / JSONRPC-SVC-002: a JSON-RPC 2.0 answer, application/json, A2A-Extensions taken", async () => {
    const answer = await server.fetch("/a2a/jsonrpc", {
      method: "POST",
      headers: { "A2A-Extensions": "https://example.com/ext/v1,https://example.com/ext/v2", "A2A-Version": "1.0" },
      body: { jsonrpc: "2.0", id: 7, method: "SendMessage", params: send10("fmt") },
    });
    assert.equal(answer.status, 200);
    assert.match(String(answer.headers["content-type"]), /^application\/json/);
    assert.deepEqual([answer.body.jsonrpc, answer.body.id], ["2.0", 7]);
    assert.equal(answer.body.result.task.status.state, "TASK_STATE_COMPLETED");
  });

  it("JSONRPC-SSE-001: a stream is text/event-stream, each event a JSON-RPC response around a StreamResponse", async () => {
    const reader = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: "sse", method: "SendStreamingMessage", params: send10("sse") },
    });
    assert.match(String(reader.headers["content-type"]), /^text\/event-stream/);
    const events = await reader.rest();
    assert.ok(events.length >= 2);
    for (const event of events) {
      assert.deepEqual([event.data.jsonrpc, event.data.id], ["2.0", "sse"]);
      const keys = Object.keys(event.data.result);
      assert.equal(keys.length, 1);
      assert.ok(["task", "message", "statusUpdate", "artifactUpdate"].includes(keys[0] as string));
    }
  });

  it("0.3 too: tasks/resubscribe, message/send to an unknown task -32001, a data part -32005", async () => {
    const missing = await server.rpc("message/send", {
      message: {
        kind: "message",
        messageId: "m03",
        role: "user",
        taskId: "nope",
        parts: [{ kind: "text", text: "x" }],
      },
    });
    assert.equal(missing.error.code, -32001);
    const data = await server.rpc("message/send", {
      message: { kind: "message", messageId: "m03b", role: "user", parts: [{ kind: "data", data: { a: 1 } }] },
    });
    assert.equal(data.error.code, -32005);
    assert.equal(data.error.data.errors[0].path, "/message/parts/0");
    const card = await server.call("agent/getAuthenticatedExtendedCard", {});
    assert.equal(card.protocolVersion, "0.3.0");
    assert.equal(typeof card.capabilities.extensions[0].params.workspace, "string");
  });
});
