// POST /a2a/jsonrpc (CONTRACT 8.2): JSON-RPC 2.0 over HTTP, both method families on the one method table, answered
// by the JSON-RPC handler every JSON-RPC binding shares (src/jsonrpc/handler.ts). This file is the HTTP framing:
// every JSON-RPC answer is HTTP 200, errors included; a streaming method answers with SSE events that each carry the
// request's id (CONTRACT 8.4), so a stream comes alone (a batch takes non-streaming calls only).
import type { Context, Handler } from "hono";
import type { JSONRPCResponse } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import type { ServiceParams } from "../a2a/service-params.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { CoreError } from "../core/errors.js";
import type { AnswerText } from "../jsonrpc/bounded-answers.js";
import { JsonRpcHandler } from "../jsonrpc/handler.js";
import type { JsonRpcMethods } from "../jsonrpc/methods.js";
import { errorResponse, familyError } from "../jsonrpc/rpc-messages.js";
import type { CallContext } from "../operations/context.js";
import { gated } from "./gate-bodies.js";
import { headerOf } from "./request-headers.js";
import { echoExtensions, markReplayed, serviceParamsOf } from "./service-headers.js";
import { sseAnswer } from "./sse.js";

export interface JsonRpcOptions {
  methods: JsonRpcMethods;
  log(line: string): void;
  keepAliveMs?: number;
  /** The output a stream's client may fall behind (CONTRACT 8.4). */
  maxBehindBytes: number;
  /** The bound of an answer, and of a batch's answer (docs/reference.md, "Answer size"). */
  maxAnswerBytes: number;
}

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
const answerStatus = (response: JSONRPCResponse) =>
  response.error?.code === A2A_CODES.idempotencyKeyReused ? 422 : 200;

export function jsonRpcHandler(options: JsonRpcOptions): Handler {
  const { log } = options;
  const handler = new JsonRpcHandler({
    methods: options.methods,
    maxAnswerBytes: options.maxAnswerBytes,
    log,
    streamsAlone: true,
  });

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
    // The Host passed its guard: it names this server, as the client reached it (the extended card's URLs).
    const context: CallContext = { headers: params, base: `http://${headerOf(c, "host")?.toLowerCase()}` };
    // The body as the request gate judged it (src/http/gate-bodies.ts), the same rules as on stdio. Every request
    // of a batch runs in the one context, which an operation marks when it replays a kept answer.
    const answer = await handler.answer(gated(c), () => context);
    markReplayed(c, context);
    if (answer.kind === "none") return c.body(null, 204);
    if (answer.kind === "batch") return batchBody(c, answer.texts);
    const { request, response } = answer;
    if (response.result instanceof StreamReply) return stream(c, response, response.result);
    return jsonBody(c, handler.pieces(request, response).join(""), answerStatus(response));
  };
}
