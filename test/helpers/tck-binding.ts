// One client shape over either HTTP binding of `serve --http`, for the checks ported from the A2A TCK
// (a2aproject/a2a-tck, branch 1.0-dev, tests/compatibility/): JSON-RPC on /a2a/jsonrpc or HTTP+JSON on /a2a/rest,
// each answer as a result or an error with its code (JSON-RPC) or HTTP status (REST) and its ErrorInfo reason.
import assert from "node:assert/strict";
import { HITL_URI, type HttpServer, type SseReader, send10 } from "./http-server.js";
import type { Wire } from "./wire.js";

export type BindingName = "jsonrpc" | "http_json";

export interface Outcome {
  ok: boolean;
  result?: Wire;
  /** JSON-RPC error code (jsonrpc) or HTTP status (http_json). */
  code?: number;
  /** The google.rpc status (http_json only). */
  status?: string;
  reason?: string;
  /** The ErrorInfo's metadata. */
  metadata?: Record<string, string>;
  /** Field violations of the BadRequest detail, as `field` pointers. */
  fields?: string[];
  message?: string;
}

export interface TckBinding {
  name: BindingName;
  server: HttpServer;
  send(params: unknown): Promise<Outcome>;
  get(id: string, historyLength?: number): Promise<Outcome>;
  cancel(id: string): Promise<Outcome>;
  list(query: Record<string, string | number | boolean>): Promise<Outcome>;
  extendedCard(): Promise<Outcome>;
  /** SendStreamingMessage or SubscribeToTask: the SSE reader when the answer is a stream, else the error. */
  stream(method: "SendStreamingMessage" | "SubscribeToTask", params: unknown): Promise<SseReader | Outcome>;
  /** A stream event as the StreamResponse it carries (JSON-RPC wraps it in a response). */
  item(data: Wire): Wire;
}

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";
const EXTENSIONS = { "A2A-Extensions": HITL_URI, "A2A-Version": "1.0" };

function fromDetails(details: Wire[], outcome: Outcome): Outcome {
  const info = details.find((detail) => detail["@type"] === ERROR_INFO);
  const bad = details.find((detail) => detail["@type"] === BAD_REQUEST);
  return {
    ...outcome,
    ...(info ? { reason: info.reason, metadata: info.metadata } : {}),
    ...(bad ? { fields: bad.fieldViolations.map((violation: Wire) => violation.field) } : {}),
  };
}

export function jsonRpcBinding(server: HttpServer): TckBinding {
  let ids = 0;
  const call = async (method: string, params: unknown): Promise<Outcome> => {
    const response = await server.rpc(method, params, EXTENSIONS);
    if (response.error === undefined) return { ok: true, result: response.result };
    const { code, message, data } = response.error;
    return fromDetails(Array.isArray(data) ? data : [], { ok: false, code, message });
  };
  return {
    name: "jsonrpc",
    server,
    send: (params) => call("SendMessage", params),
    get: (id, historyLength) => call("GetTask", historyLength === undefined ? { id } : { id, historyLength }),
    cancel: (id) => call("CancelTask", { id }),
    list: (query) => call("ListTasks", query),
    extendedCard: () => call("GetExtendedAgentCard", {}),
    async stream(method, params) {
      ids += 1;
      const reader = await server.stream("/a2a/jsonrpc", {
        method: "POST",
        headers: EXTENSIONS,
        body: { jsonrpc: "2.0", id: `tck-${ids}`, method, params },
      });
      assert.equal(reader.status, 200);
      if (String(reader.headers["content-type"]).startsWith("text/event-stream")) return reader;
      const chunks: Buffer[] = [];
      for await (const chunk of reader.response) chunks.push(Buffer.from(chunk));
      const { code, message, data } = JSON.parse(Buffer.concat(chunks).toString("utf8")).error;
      return fromDetails(data, { ok: false, code, message });
    },
    item: (data) => data.result,
  };
}

export function restBinding(server: HttpServer): TckBinding {
  const answer = async (path: string, options: { method?: string; body?: unknown } = {}): Promise<Outcome> => {
    const reply = await server.fetch(`/a2a/rest${path}`, { ...options, headers: EXTENSIONS });
    if (reply.status === 200) return { ok: true, result: reply.body };
    const { code, status, message, details } = reply.body.error;
    assert.equal(code, reply.status, "error.code is the HTTP status (AIP-193)");
    return fromDetails(details, { ok: false, code: reply.status, status, message });
  };
  return {
    name: "http_json",
    server,
    send: (params) => answer("/message:send", { method: "POST", body: params }),
    get: (id, historyLength) =>
      answer(`/tasks/${encodeURIComponent(id)}${historyLength === undefined ? "" : `?historyLength=${historyLength}`}`),
    cancel: (id) => answer(`/tasks/${encodeURIComponent(id)}:cancel`, { method: "POST", body: {} }),
    list: (query) =>
      answer(
        `/tasks?${new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)]))}`,
      ),
    extendedCard: () => answer("/extendedAgentCard"),
    async stream(method, params) {
      const path =
        method === "SendStreamingMessage"
          ? "/a2a/rest/message:stream"
          : `/a2a/rest/tasks/${encodeURIComponent((params as { id: string }).id)}:subscribe`;
      const reader = await server.stream(path, { method: "POST", headers: EXTENSIONS, body: params });
      if (reader.status === 200) return reader;
      const chunks: Buffer[] = [];
      for await (const chunk of reader.response) chunks.push(Buffer.from(chunk));
      const { status, message, details } = JSON.parse(Buffer.concat(chunks).toString("utf8")).error;
      return fromDetails(details, { ok: false, code: reader.status, status, message });
    },
    item: (data) => data,
  };
}

/** A running command that asks (`ask`: one prompt; `ask-twice`: two), as a blocking send leaves it: at its prompt. */
export async function promptedTask(binding: TckBinding, fixture = "ask"): Promise<{ task: Wire; promptId: string }> {
  const sent = await binding.send(
    send10("tck prerequisite", { envelope: { working_dir: fixture, input_mode: "text-line" } }),
  );
  assert.ok(sent.ok, JSON.stringify(sent));
  const task = sent.result.task;
  assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
  return { task, promptId: task.status.message.metadata[HITL_URI].prompt_id };
}

/** A task that has completed (the echo). */
export async function completedTask(binding: TckBinding): Promise<Wire> {
  const sent = await binding.send(send10("tck prerequisite"));
  assert.ok(sent.ok, JSON.stringify(sent));
  assert.equal(sent.result.task.status.state, "TASK_STATE_COMPLETED");
  return sent.result.task;
}

/** An answer to `promptId`, as CONTRACT section 4 takes it; `contextId: undefined` leaves the context out. */
export function answerOf(
  task: Wire,
  promptId: string,
  text: string,
  options: { contextId?: string | undefined; configuration?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const contextId = "contextId" in options ? options.contextId : task.contextId;
  return {
    message: {
      messageId: `tck-answer-${process.pid}-${Math.random().toString(36).slice(2)}`,
      role: "ROLE_USER",
      taskId: task.id,
      ...(contextId === undefined ? {} : { contextId }),
      parts: [{ text }],
      metadata: { hitl_response_for: { prompt_id: promptId, payload: { text } } },
    },
    ...(options.configuration ? { configuration: options.configuration } : {}),
  };
}

/** The state a StreamResponse carries, if any. */
export function stateOf(item: Wire): string | undefined {
  return item?.statusUpdate?.status?.state ?? item?.task?.status?.state;
}

export const TERMINAL = ["TASK_STATE_COMPLETED", "TASK_STATE_FAILED", "TASK_STATE_CANCELED", "TASK_STATE_REJECTED"];
