// POST /a2a/jsonrpc (CONTRACT 8.2): JSON-RPC 2.0 over HTTP, both method families on the one method table. Every
// JSON-RPC answer is HTTP 200, errors included; a streaming method answers with SSE events that each carry the
// request's id (CONTRACT 8.4); a batch takes non-streaming calls only.
import type { Context, Handler } from "hono";
import type { JSONRPCResponse, JSONRPCServer } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import type { ServiceParams } from "../a2a/service-params.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { isRecord } from "../core/envelope/json-value.js";
import { CoreError } from "../core/errors.js";
import type { GateRefusal } from "../gate/request-gate.js";
import { type AnswerText, type AnswerWriter, answerBatch, answerJson } from "../jsonrpc/bounded-answers.js";
import { errorResponse, familyError, notARequest, refusalResponse } from "../jsonrpc/rpc-messages.js";
import type { CallContext } from "../operations/context.js";
import { STREAMING_OPERATIONS } from "../operations/table.js";
import { gated } from "./gate-bodies.js";
import { echoExtensions, markReplayed, serviceParamsOf } from "./service-headers.js";
import { sseAnswer } from "./sse.js";

/** As on stdio (CONTRACT 5.1). */
const MAX_BATCH = 1000;

export interface JsonRpcOptions {
  methods: JSONRPCServer<CallContext>;
  log(line: string): void;
  keepAliveMs?: number;
  /** The output a stream's client may fall behind (CONTRACT 8.4). */
  maxBehindBytes: number;
  /** The bound of an answer, and of a batch's answer (docs/reference.md, "Answer size"). */
  maxAnswerBytes: number;
}

const invalid = (id: unknown, detail: string) =>
  errorResponse(id, A2A_CODES.invalidRequest, "Invalid Request", { detail });

const jsonBody = (c: Context, text: string, status: 200 | 422 = 200) =>
  c.body(text, status, { "Content-Type": "application/json" });

/** A batch's answer, written entry by entry as the client reads it (an entry made again only then). */
function batchBody(c: Context, texts: readonly AnswerText[]) {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at === texts.length) {
        controller.enqueue(Buffer.from("]"));
        controller.close();
        return;
      }
      const text = texts[at] as AnswerText;
      const opening = at === 0 ? "[" : ",";
      // A held entry is one chunk; a large one is made again now, and sent in the pieces it is made of.
      const pieces = typeof text === "string" ? [`${opening}${text}`] : [opening, ...text()];
      for (const piece of pieces) controller.enqueue(Buffer.from(piece));
      at += 1;
    },
  });
  return c.body(body, 200, { "Content-Type": "application/json" });
}

/**
 * HTTP 200 for every JSON-RPC answer, but 422 for a single -32422 (an idempotency key reused with another payload,
 * as the runtime answers: CONTRACT 9.1). An answer past its bound is a -32000 (src/jsonrpc/bounded-answers.ts).
 */
const answer = (c: Context, request: unknown, response: JSONRPCResponse, writer: AnswerWriter) =>
  jsonBody(
    c,
    answerJson(request, response, writer),
    response.error?.code === A2A_CODES.idempotencyKeyReused ? 422 : 200,
  );

export function jsonRpcHandler(options: JsonRpcOptions): Handler {
  const { methods, log } = options;
  const writer: AnswerWriter = { maxBytes: options.maxAnswerBytes };

  const one = async (
    value: unknown,
    context: CallContext,
    inBatch: boolean,
    refused: ReadonlyMap<unknown, GateRefusal>,
  ): Promise<JSONRPCResponse | null> => {
    const refusal = refused.get(value);
    if (refusal) return isRecord(value) && !("id" in value) ? null : refusalResponse(refusal);
    const problem = notARequest(value);
    const request = value as { id?: unknown; method: string };
    if (problem) return invalid(isRecord(value) ? value.id : null, problem);
    if (STREAMING_OPERATIONS.has(request.method)) {
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
      if (error instanceof CoreError) return JSON.stringify(familyError(response.id, reply.family, error));
      log(`internal error while following a task: ${(error as Error)?.stack ?? error}`);
      return JSON.stringify(errorResponse(response.id, A2A_CODES.internal, "Internal error"));
    };
    return sseAnswer(c, reply, {
      wrap,
      errorData,
      keepAliveMs: options.keepAliveMs,
      maxBehindBytes: options.maxBehindBytes,
    });
  };

  return async (c) => {
    const params: ServiceParams = serviceParamsOf(c);
    echoExtensions(c, params);
    // The body as the request gate judged it (src/http/gate-bodies.ts), the same rules as on stdio.
    const verdict = gated(c);
    if (!verdict.ok) return answer(c, undefined, refusalResponse(verdict.refusal), writer);
    const { value, refused } = verdict;
    // The Host passed hostGuard: it names this server, as the client reached it (the extended card's URLs).
    const context: CallContext = { headers: params, base: `http://${c.req.header("host")?.toLowerCase()}` };
    if (!Array.isArray(value)) {
      const response = await one(value, context, false, refused);
      markReplayed(c, context);
      if (response === null) return c.body(null, 204);
      if (response.result instanceof StreamReply) return stream(c, response, response.result);
      return answer(c, value, response, writer);
    }
    if (value.length === 0 || value.length > MAX_BATCH) {
      const detail =
        value.length === 0
          ? "expected a non-empty batch"
          : `expected at most ${MAX_BATCH} requests in a batch, found ${value.length}`;
      return answer(c, undefined, invalid(null, detail), writer);
    }
    // A few entries at a time, each answer counted as it is written (src/jsonrpc/bounded-answers.ts).
    const { texts } = await answerBatch(value, (item) => one(item, context, true, refused), writer);
    markReplayed(c, context);
    return texts.length === 0 ? c.body(null, 204) : batchBody(c, texts);
  };
}
