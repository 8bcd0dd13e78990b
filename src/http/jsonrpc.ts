// POST /a2a/jsonrpc (CONTRACT 8.2): JSON-RPC 2.0 over HTTP, both method families on the one method table. Every
// JSON-RPC answer is HTTP 200, errors included; a streaming method answers with SSE events that each carry the
// request's id (CONTRACT 8.4); a batch takes non-streaming calls only.
import type { Context, Handler } from "hono";
import type { JSONRPCResponse, JSONRPCServer } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import type { ServiceParams } from "../a2a/service-params.js";
import { rpcErrorOf as error03 } from "../a2a/v0_3/errors.js";
import { rpcErrorOf as error10 } from "../a2a/v1_0/errors.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { CoreError } from "../core/errors.js";
import { isRecord, MAX_NESTING, nestingDepth } from "../core/json-value.js";
import { responseJson } from "../jsonrpc/json-text.js";
import { type CallContext, STREAMING_METHODS } from "../jsonrpc/methods.js";
import { errorResponse, notARequest } from "../jsonrpc/requests.js";
import { bodyText, isJsonMediaType } from "./answers.js";
import { echoExtensions, serviceParamsOf } from "./service-headers.js";
import { sseAnswer } from "./sse.js";

/** As on stdio (CONTRACT 5.1). */
const MAX_BATCH = 1000;

export interface JsonRpcOptions {
  methods: JSONRPCServer<CallContext>;
  log(line: string): void;
  keepAliveMs?: number;
}

const invalid = (id: unknown, detail: string) =>
  errorResponse(id, A2A_CODES.invalidRequest, "Invalid Request", { detail });

const answer = (c: Context, value: JSONRPCResponse | JSONRPCResponse[]) => {
  const text = Array.isArray(value) ? `[${value.map(responseJson).join(",")}]` : responseJson(value);
  return c.body(text, 200, { "Content-Type": "application/json" });
};

/** -32005 in the shapes of the request's method family (0.3 names have a slash). */
function contentTypeError(text: string, contentType: string | undefined): JSONRPCResponse {
  let request: unknown;
  try {
    request = JSON.parse(text);
  } catch {
    request = undefined;
  }
  const id = isRecord(request) ? request.id : null;
  const method = isRecord(request) && typeof request.method === "string" ? request.method : "";
  const error = new CoreError(
    "content_type_not_supported",
    `expected Content-Type application/json or application/a2a+json, found ${contentType ?? "none"}`,
  );
  const { code, message, data } = (method.includes("/") ? error03 : error10)(error);
  return errorResponse(id, code, message, data);
}

export function jsonRpcHandler(options: JsonRpcOptions): Handler {
  const { methods, log } = options;

  const one = async (value: unknown, context: CallContext, inBatch: boolean): Promise<JSONRPCResponse | null> => {
    const problem = notARequest(value);
    const request = value as { id?: unknown; method: string };
    if (problem) return invalid(isRecord(value) ? value.id : null, problem);
    if (STREAMING_METHODS.has(request.method)) {
      if (inBatch) return invalid(request.id, `${request.method} answers with a stream, which a batch cannot carry`);
      if (request.id === undefined || request.id === null)
        return invalid(null, `${request.method} answers with a stream, so it needs an id`);
    }
    return methods.receive(value as never, context);
  };

  const stream = (c: Context, response: JSONRPCResponse, reply: StreamReply) => {
    const id = JSON.stringify(response.id);
    const wrap = { head: `{"jsonrpc":"2.0","id":${id},"result":`, tail: "}" };
    const errorData = (error: unknown) => {
      log(`internal error while following a task: ${(error as Error)?.stack ?? error}`);
      return JSON.stringify(errorResponse(response.id, A2A_CODES.internal, "Internal error"));
    };
    return sseAnswer(c, reply, { wrap, errorData, keepAliveMs: options.keepAliveMs });
  };

  return async (c) => {
    const params: ServiceParams = serviceParamsOf(c);
    echoExtensions(c, params);
    const text = await bodyText(c);
    const contentType = c.req.header("content-type");
    if (!isJsonMediaType(contentType)) return answer(c, contentTypeError(text, contentType));
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return answer(c, errorResponse(null, A2A_CODES.parseError, "Parse error", { detail: (error as Error).message }));
    }
    if (nestingDepth(value, MAX_NESTING) > MAX_NESTING)
      return answer(c, invalid(isRecord(value) ? value.id : null, `nested deeper than ${MAX_NESTING} levels`));
    const context: CallContext = { headers: params };
    if (!Array.isArray(value)) {
      const response = await one(value, context, false);
      if (response === null) return c.body(null, 204);
      if (response.result instanceof StreamReply) return stream(c, response, response.result);
      return answer(c, response);
    }
    if (value.length === 0 || value.length > MAX_BATCH) {
      const detail =
        value.length === 0
          ? "expected a non-empty batch"
          : `expected at most ${MAX_BATCH} requests in a batch, found ${value.length}`;
      return answer(c, invalid(null, detail));
    }
    const responses = (await Promise.all(value.map((item) => one(item, context, true)))).filter(
      (response): response is JSONRPCResponse => response !== null,
    );
    return responses.length === 0 ? c.body(null, 204) : answer(c, responses);
  };
}
