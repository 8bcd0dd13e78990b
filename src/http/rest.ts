// The HTTP+JSON binding under /a2a/rest (CONTRACT 8.2, 8.3): each route is one A2A 1.0 operation of the operations
// table (src/operations/table.ts), called with the path, query and body as its params; answers are the 1.0 objects, errors a google.rpc.Status
// with the HTTP status of the error table, and streams SSE events of StreamResponses.
import { type Context, Hono } from "hono";
import { httpError, restErrorOf, restErrorOfRpc } from "../a2a/v1_0/errors.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { CoreError } from "../core/errors.js";
import { jsonWithin, tooLargeError } from "../operations/answer-budget.js";
import type { CallContext } from "../operations/context.js";
import { RpcFailure } from "../operations/rpc-failure.js";
import { type Operations, operationNamed } from "../operations/table.js";
import { gated } from "./gate-bodies.js";
import { headerOf } from "./request-headers.js";
import { jsonText, notFound, statusAnswer } from "./responses.js";
import { echoExtensions, markReplayed, serviceParamsOf } from "./service-headers.js";
import { sseAnswer } from "./sse.js";

export interface RestOptions {
  operations: Operations;
  log(line: string): void;
  keepAliveMs?: number;
  /** The output a stream's client may fall behind (CONTRACT 8.4). */
  maxBehindBytes: number;
  /** The bound of an answer (docs/reference.md, "Answer size"). */
  maxAnswerBytes: number;
}

/** Seconds a client is asked to wait after a 503 (the queue of waiting tasks is full). */
const RETRY_AFTER_S = "5";

const NUMBERS = new Set(["pageSize", "page_size", "historyLength", "history_length"]);
const BOOLEANS = new Set(["includeArtifacts", "include_artifacts"]);

/** Query parameters as params: whole numbers and booleans where the method takes them; the rest as strings. */
export function queryParams(query: Record<string, string>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    if (key === "A2A-Version") continue;
    if (NUMBERS.has(key) && /^-?\d+$/.test(value)) params[key] = Number(value);
    else if (BOOLEANS.has(key) && (value === "true" || value === "false")) params[key] = value === "true";
    else params[key] = value;
  }
  return params;
}

export function restRoutes(options: RestOptions): Hono {
  const { operations, log } = options;
  const rest = new Hono();

  const call = async (c: Context, method: string, params: unknown): Promise<Response> => {
    const service = serviceParamsOf(c);
    echoExtensions(c, service);
    const context: CallContext = { headers: service, base: `http://${headerOf(c, "host")?.toLowerCase()}` };
    let result: unknown;
    try {
      result = await operationNamed(operations, method).call(params, context);
    } catch (failure) {
      const error = failure instanceof RpcFailure ? restErrorOfRpc(failure.error) : restErrorOf(failure as CoreError);
      return statusAnswer(error, {
        ...(error.http === 503 ? { "Retry-After": RETRY_AFTER_S } : {}),
        ...(context.replayed ? { "Idempotent-Replayed": "true" } : {}),
      });
    }
    markReplayed(c, context);
    if (!(result instanceof StreamReply)) {
      // Measured as it is written: past the bound, a 429 instead (src/operations/answer-budget.ts).
      const text = jsonWithin(result, options.maxAnswerBytes);
      return text === undefined ? statusAnswer(restErrorOf(tooLargeError(options.maxAnswerBytes))) : jsonText(c, text);
    }
    const errorData = (error: unknown) => {
      if (error instanceof CoreError) return JSON.stringify(restErrorOf(error).body);
      log(`internal error while following a task: ${(error as Error)?.stack ?? error}`);
      return JSON.stringify(httpError(500, "INTERNAL", "internal error while following the task"));
    };
    return sseAnswer(c, result, {
      wrap: { head: "", tail: "" },
      errorData,
      keepAliveMs: options.keepAliveMs,
      maxBehindBytes: options.maxBehindBytes,
    });
  };

  /** The request's body as params (none is `{}`), as the request gate judged it; or its refusal. */
  const body = (c: Context): { params: Record<string, unknown> } | { refusal: Response } => {
    const verdict = gated(c);
    if (verdict.ok) return { params: verdict.value as Record<string, unknown> };
    const { rule, words, problem } = verdict.refusal;
    // A body's media type is refused at the HTTP level, 415, before the request is read (CONTRACT 8.1; the A2A TCK's
    // HTTP_JSON-STATUS-001); a message part's media type is the A2A error, 400 (A2A 1.0.1 §5.4).
    if (rule === "content_type") {
      const answer = restErrorOf(new CoreError("content_type_not_supported", words));
      return { refusal: statusAnswer({ http: 415, body: { error: { ...answer.body.error, code: 415 } } }) };
    }
    const error = new CoreError("invalid_params", words, problem ? { errors: [problem] } : {});
    return { refusal: statusAnswer(restErrorOf(error)) };
  };

  const withBody = (method: string) => async (c: Context) => {
    const read = body(c);
    return "refusal" in read ? read.refusal : call(c, method, read.params);
  };

  rest.post("/message:send", withBody("SendMessage"));
  rest.post("/message:stream", withBody("SendStreamingMessage"));
  rest.get("/tasks", (c) => call(c, "ListTasks", queryParams(c.req.query())));

  // Push notification configs (CONTRACT 9.3): the task id from the path wins over one in the body.
  rest.post("/tasks/:id/pushNotificationConfigs", async (c) => {
    const read = await body(c);
    if ("refusal" in read) return read.refusal;
    return call(c, "CreateTaskPushNotificationConfig", { ...read.params, taskId: c.req.param("id") });
  });
  rest.get("/tasks/:id/pushNotificationConfigs", (c) =>
    call(c, "ListTaskPushNotificationConfigs", { ...queryParams(c.req.query()), taskId: c.req.param("id") }),
  );
  rest.get("/tasks/:id/pushNotificationConfigs/:configId", (c) =>
    call(c, "GetTaskPushNotificationConfig", { taskId: c.req.param("id"), id: c.req.param("configId") }),
  );
  rest.delete("/tasks/:id/pushNotificationConfigs/:configId", (c) =>
    call(c, "DeleteTaskPushNotificationConfig", { taskId: c.req.param("id"), id: c.req.param("configId") }),
  );
  rest.get("/extendedAgentCard", (c) => call(c, "GetExtendedAgentCard", {}));

  // `{id}`, `{id}:cancel` and `{id}:subscribe` are one path segment.
  rest.on(["GET", "POST"], "/tasks/:ref", async (c) => {
    const ref = c.req.param("ref");
    const action = /^(.*):(cancel|subscribe)$/.exec(ref);
    const read = c.req.method === "POST" ? body(c) : { params: {} };
    if ("refusal" in read) return read.refusal;
    if (!action) {
      if (c.req.method !== "GET") return notFound(c);
      return call(c, "GetTask", { ...queryParams(c.req.query()), id: ref });
    }
    const [, id, verb] = action;
    if (verb === "cancel" && c.req.method !== "POST") return notFound(c);
    return call(c, verb === "cancel" ? "CancelTask" : "SubscribeToTask", { ...read.params, id });
  });
  return rest;
}
