// hitl-prompt/v1 over each HTTP binding (CONTRACT 4, 8.3, 8.4): a prompt, an invalid answer (REST 422, JSON-RPC
// -32011) that leaves it open, an answer that streams on to the next prompt, a second answer to the first prompt
// (REST 409, JSON-RPC -32010), and the last answer.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { assertV1 } from "../helpers/a2a-schema.js";
import { answer10, assertStatus, HITL_URI, type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import type { Wire } from "../helpers/wire.js";

const askTwice = () => send10("ask", { envelope: { working_dir: "ask-twice", input_mode: "text-line" } });
const promptIdOf = (status: Wire): string => status.message.metadata[HITL_URI].prompt_id;

/** The binding under test: how to send, stream and read errors. */
interface Binding {
  send(body: unknown): Promise<{ task?: Wire; error?: { http?: number; code?: number; info: Wire; details: Wire[] } }>;
  /** SendStreamingMessage: every StreamResponse until the stream closes. */
  stream(body: unknown): Promise<Wire[]>;
  get(id: string): Promise<Wire>;
}

function rest(server: HttpServer): Binding {
  return {
    async send(body) {
      const answer = await server.fetch("/a2a/rest/message:send", {
        method: "POST",
        body,
        headers: { "A2A-Extensions": HITL_URI },
      });
      if (answer.status === 200) {
        assertV1("Send Message Response", answer.body);
        return { task: answer.body.task };
      }
      const info = assertStatus(answer, answer.status, answer.body.error.status);
      return { error: { http: answer.status, info, details: answer.body.error.details } };
    },
    async stream(body) {
      const stream = await server.stream("/a2a/rest/message:stream", { method: "POST", body });
      assert.equal(stream.status, 200);
      return (await stream.rest()).map((event) => event.data);
    },
    async get(id) {
      return (await server.fetch(`/a2a/rest/tasks/${id}`)).body;
    },
  };
}

function jsonRpc(server: HttpServer): Binding {
  return {
    async send(body) {
      const response = await server.rpc("SendMessage", body, { "A2A-Extensions": HITL_URI });
      if (response.result) {
        assertV1("Send Message Response", response.result);
        return { task: response.result.task };
      }
      const info = response.error.data.find((d: Wire) => d["@type"].endsWith("ErrorInfo"));
      return { error: { code: response.error.code, info, details: response.error.data } };
    },
    async stream(body) {
      const stream = await server.stream("/a2a/jsonrpc", {
        method: "POST",
        body: { jsonrpc: "2.0", id: "answer", method: "SendStreamingMessage", params: body },
      });
      assert.equal(stream.status, 200);
      return (await stream.rest()).map((event) => event.data.result);
    },
    async get(id) {
      return server.call("GetTask", { id });
    },
  };
}

async function roundTrip(binding: Binding, expect: { invalid: number; unknown: number }, via: "http" | "code") {
  // 1. The prompt: a blocking send returns at input-required.
  const { task } = await binding.send(askTwice());
  assert.ok(task, "the send succeeds");
  assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
  const message = task.status.message;
  assert.deepEqual(message.extensions, [HITL_URI]);
  assert.equal(message.role, "ROLE_AGENT");
  assert.equal(message.parts[0].text, "First? [y/N]");
  const first = promptIdOf(task.status);

  // 2. An invalid answer: refused, the prompt stays open.
  const invalid = await binding.send(answer10(task, first, { text: "bad\u0007" }));
  assert.equal(invalid.error?.[via === "http" ? "http" : "code"], expect.invalid);
  assert.equal(invalid.error?.info.reason, "HITL_RESPONSE_INVALID");
  assert.equal(invalid.error?.info.domain, "agentic-sandbox.aiwg.io");
  assert.equal(invalid.error?.info.metadata.prompt_id, first);
  assert.equal(invalid.error?.info.metadata.extension, HITL_URI);
  const violations = invalid.error?.details.find((d) => d["@type"].endsWith("BadRequest"));
  assert.ok(violations.fieldViolations.length > 0);
  assert.equal((await binding.get(task.id)).status.state, "TASK_STATE_INPUT_REQUIRED");

  // 3. A valid answer through SendStreamingMessage: the stream follows the task to its next prompt.
  const events = await binding.stream(answer10(task, first, { text: "a" }));
  for (const event of events) assertV1("Stream Response", event);
  assert.equal(events[0].task.id, task.id);
  const last = events.at(-1);
  assert.equal(last.statusUpdate.status.state, "TASK_STATE_INPUT_REQUIRED");
  const second = promptIdOf(last.statusUpdate.status);
  assert.notEqual(second, first);

  // 4. The first prompt again: already answered.
  const again = await binding.send(answer10(task, first, { text: "a" }));
  assert.equal(again.error?.[via === "http" ? "http" : "code"], expect.unknown);
  assert.equal(again.error?.info.reason, "HITL_ALREADY_ANSWERED_OR_UNKNOWN");
  assert.equal(again.error?.info.metadata.reason, "unknown_or_answered");
  assert.equal(again.error?.info.metadata.prompt_id, first);

  // 5. The second prompt: answered; a blocking send waits until the command completes with both answers.
  const done = await binding.send(answer10(task, second, { text: "b" }));
  assert.equal(done.task?.status.state, "TASK_STATE_COMPLETED");
  const ended = await binding.get(task.id);
  assertV1("Task", ended);
  assert.equal(ended.status.state, "TASK_STATE_COMPLETED");
  const stdout = ended.artifacts.find((a: Wire) => a.artifactId === "stdout");
  assert.match(stdout.parts.map((p: Wire) => p.text).join(""), /answers: a,b\n$/);
}

describe("serve --http: hitl-prompt/v1 round trips", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp(["--settle-ms", "100"]);
  });
  after(async () => {
    await server?.close();
  });

  it("over HTTP+JSON: prompt, 422 for an invalid answer, a streamed answer, 409 for a second answer", async () => {
    await roundTrip(rest(server), { invalid: 422, unknown: 409 }, "http");
  });

  it("over JSON-RPC: prompt, -32011 for an invalid answer, a streamed answer, -32010 for a second answer", async () => {
    await roundTrip(jsonRpc(server), { invalid: -32011, unknown: -32010 }, "code");
  });

  it("REST statuses: 422 INVALID_ARGUMENT and 409 ABORTED, with the hitl messages", async () => {
    const { body } = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: askTwice(),
      headers: { "A2A-Extensions": HITL_URI },
    });
    const task = body.task;
    const first = promptIdOf(task.status);
    const invalid = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: answer10(task, first, { text: "x", extra: 1 }),
    });
    assertStatus(invalid, 422, "INVALID_ARGUMENT");
    assert.equal(invalid.body.error.message, "hitl_response_invalid");
    const wrong = await server.fetch("/a2a/rest/message:send", {
      method: "POST",
      body: answer10(task, "00000000-0000-4000-8000-000000000000", { text: "y" }),
    });
    assertStatus(wrong, 409, "ABORTED");
    // The 409 says why in its message, not only in details.
    assert.equal(
      wrong.body.error.message,
      "hitl_already_answered_or_unknown: prompt_id is not the open prompt: already answered, withdrawn by newer output, or never asked",
    );
    await server.fetch(`/a2a/rest/tasks/${task.id}:cancel`, { method: "POST" });
  });
});
