// Answers within their bound (docs/reference.md, "Answer size"): the batch that used to take `serve --http` down
// (100 tasks of ~60 KB text, then 1000 × ListTasks of 100 tasks each) is answered in full, the entries past the bound
// as -32000 `response_too_large`, on HTTP and on stdio alike; and the server keeps serving.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { suiteBridge } from "../helpers/bridge.js";
import { type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import type { Wire } from "../helpers/wire.js";

const TASKS = 100;
const TEXT = "x".repeat(60_000);
const ENTRIES = 1000;
const ATTACK = Array.from({ length: ENTRIES }, (_, id) => ({
  jsonrpc: "2.0",
  id,
  method: "ListTasks",
  params: { pageSize: 100, historyLength: 10 },
}));

/** Sends `count` messages of TEXT, ten at a time. */
async function fill(send: (params: unknown) => Promise<Wire>, count = TASKS): Promise<void> {
  for (let sent = 0; sent < count; sent += 10) {
    const tasks = await Promise.all(Array.from({ length: 10 }, () => send(send10(TEXT))));
    for (const answer of tasks) assert.equal(answer.task.status.state, "TASK_STATE_COMPLETED");
  }
}

/** The batch's answer: every entry, in order, with its id; the first full pages, then -32000 to the end. */
function assertBounded(entries: Wire[], maxBytes: number): void {
  assert.ok(Array.isArray(entries), "a batch answer");
  assert.deepEqual(
    entries.map((entry) => entry.id),
    ATTACK.map((request) => request.id),
  );
  const full = entries.filter((entry) => entry.result !== undefined);
  assert.ok(full.length >= 1, "the first pages are answered");
  for (const entry of full) assert.equal(entry.result.tasks.length, 100);
  const firstError = entries.findIndex((entry) => entry.error !== undefined);
  assert.equal(firstError, full.length, "the answers in full come first, the errors after them");
  for (const entry of entries.slice(firstError)) {
    assert.equal(entry.error.code, -32000, JSON.stringify(entry.error));
    assert.match(entry.error.message, /^response too large: /);
    assert.equal(entry.error.data[0].reason, "RESPONSE_TOO_LARGE");
  }
  assert.match(entries[firstError].error.message, /this request ran, but its answer would pass the limit/);
  assert.match(entries.at(-1).error.message, /not run: the batch's answer reached its limit of \d+ bytes/);
  const fullBytes = full.reduce((sum, entry) => sum + Buffer.byteLength(JSON.stringify(entry)), 0);
  assert.ok(fullBytes <= maxBytes, `${fullBytes} bytes of answers past the bound ${maxBytes}`);
}

describe("serve --http: the answer of a batch is bounded", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server?.close();
  });

  it("1000 × ListTasks over 100 tasks of 60 KB: answered within 64 MiB, and the server keeps serving", async () => {
    await fill((params) => server.call("SendMessage", params));
    const answer = await server.fetch("/a2a/jsonrpc", { method: "POST", body: ATTACK, timeoutMs: 120_000 });
    assert.equal(answer.status, 200);
    assertBounded(answer.body, 64 * 1024 * 1024);
    const listed = await server.call("ListTasks", { pageSize: 1 });
    assert.equal(listed.tasks.length, 1);
    const sent = await server.call("SendMessage", send10("still here"));
    assert.equal(sent.task.status.state, "TASK_STATE_COMPLETED");
  });

  it("a single answer past the bound is -32000 on JSON-RPC and 429 on REST", async () => {
    // GetTask of one task of 60 KB is small; a page of 100 of them with their history is not, under a 1 MiB bound.
    const small = await startHttp(["--max-output-bytes", String(128 * 1024)]);
    try {
      await fill((params) => small.call("SendMessage", params), 20);
      const one = await small.rpc("ListTasks", { pageSize: 20, historyLength: 10 });
      assert.equal(one.error.code, -32000, JSON.stringify(one.error));
      assert.equal(one.error.data[0].reason, "RESPONSE_TOO_LARGE");
      assert.match(one.error.message, /expected an answer of at most 1048576 bytes, found more/);
      const rest = await small.fetch("/a2a/rest/tasks?pageSize=20&historyLength=10");
      assert.equal(rest.status, 429, rest.text);
      assert.equal(rest.body.error.status, "RESOURCE_EXHAUSTED");
      assert.equal(rest.body.error.details[0].reason, "RESPONSE_TOO_LARGE");
      const fits = await small.fetch("/a2a/rest/tasks?pageSize=2&historyLength=10");
      assert.equal(fits.status, 200, fits.text);
      assert.equal(fits.body.tasks.length, 2);
    } finally {
      await small.close();
    }
  });
});

describe("serve --stdio: the answer of a batch is bounded", () => {
  // A bound of 8 MiB (8 × --max-output-bytes): the same attack, a smaller answer to read.
  const bridge = suiteBridge({ args: ["--max-output-bytes", String(1024 * 1024)] });

  it("1000 × ListTasks over 100 tasks of 60 KB: answered within 8 MiB, and the server keeps serving", async () => {
    await fill((params) => bridge().call("SendMessage", params));
    bridge().sendLine(JSON.stringify(ATTACK));
    assertBounded(await bridge().nextRawResponse(120_000), 8 * 1024 * 1024);
    const sent = await bridge().call("SendMessage", send10("still here"));
    assert.equal(sent.task.status.state, "TASK_STATE_COMPLETED");
  });
});
