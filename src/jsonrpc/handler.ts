// The one JSON-RPC handler of every JSON-RPC binding (stdio, HTTP; CONTRACT 5.1, 8.2): a body as the request gate
// judged it (src/gate/request-gate.ts) in, its answer out: one response, a batch's answers in order, or nothing
// (notifications only). The bound of a batch, the checks of each entry and the answer's size are here; a transport
// keeps only its framing (src/stdio/connection.ts: lines and `tasks/event` notifications; src/http/jsonrpc.ts:
// HTTP status, SSE). A difference between them that must stay is an option of the handler.
import type { JSONRPCResponse } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { isRecord } from "../core/envelope/json-value.js";
import type { GateRefusal, GateVerdict } from "../gate/request-gate.js";
import { type JsonPieces, jsonPiecesWithin } from "../operations/answer-budget.js";
import type { CallContext } from "../operations/context.js";
import { JsonText } from "../operations/json-text.js";
import { factsOf } from "../operations/table.js";
import { type AnswerText, type AnswerWriter, answerBatch, answerPieces } from "./bounded-answers.js";
import type { JsonRpcMethods } from "./methods.js";
import { errorResponse, notARequest, refusalResponse } from "./rpc-messages.js";

/** Requests a batch may hold (CONTRACT 5.1). */
export const MAX_BATCH = 1000;

export interface JsonRpcHandlerOptions {
  /** The JSON-RPC face of the operations table (src/jsonrpc/methods.ts). */
  methods: JsonRpcMethods;
  /** The bound of an answer, and of a batch's answer (docs/reference.md, "Answer size"). */
  maxAnswerBytes: number;
  log(line: string): void;
  /**
   * A streaming method must come alone and with an id: true on HTTP, where a stream is the whole response (SSE)
   * and its events carry the request's id (CONTRACT 8.4). stdio follows a stream on lines of its own, so a stream
   * may be an entry of a batch, and one asked for by a notification is closed at once.
   */
  streamsAlone: boolean;
}

export type JsonRpcAnswer =
  /** Nothing to answer: notifications only. */
  | { kind: "none" }
  /** One answer (a StreamReply result is a stream, which the transport follows); `request` decides its family. */
  | { kind: "one"; request: unknown; response: JSONRPCResponse }
  /** A batch's answers in order, within the bound; `written` are those in full (a stream among them is followed). */
  | { kind: "batch"; texts: AnswerText[]; written: JSONRPCResponse[] };

export class JsonRpcHandler {
  /** How answers are measured and written within the bound (src/jsonrpc/bounded-answers.ts). */
  private readonly writer: AnswerWriter;

  constructor(private readonly options: JsonRpcHandlerOptions) {
    this.writer = {
      maxBytes: options.maxAnswerBytes,
      encode: (response, maxBytes) => this.encode(response, maxBytes),
      // A stream whose first answer is left out is not followed.
      release: (response) => {
        if (response.result instanceof StreamReply) response.result.close();
      },
    };
  }

  /**
   * Answers one body. `contextOf` gives each request the context its operation runs in (HTTP: the one of the
   * request's headers, which the operation may mark as replayed).
   */
  async answer(
    verdict: GateVerdict,
    contextOf: (request: Record<string, unknown>) => CallContext,
  ): Promise<JsonRpcAnswer> {
    if (!verdict.ok) return { kind: "one", request: undefined, response: refusalResponse(verdict.refusal) };
    const { value, refused } = verdict;
    if (!Array.isArray(value)) {
      const response = await this.one(value, false, refused, contextOf);
      return response === null ? { kind: "none" } : { kind: "one", request: value, response };
    }
    if (value.length === 0 || value.length > MAX_BATCH) {
      const detail =
        value.length === 0
          ? "expected a non-empty batch"
          : `expected at most ${MAX_BATCH} requests in a batch, found ${value.length}`;
      return { kind: "one", request: undefined, response: invalid(null, detail) };
    }
    // A few entries at a time, each answer counted as it is written (src/jsonrpc/bounded-answers.ts).
    const batch = await answerBatch(value, (entry) => this.one(entry, true, refused, contextOf), this.writer);
    return batch.texts.length === 0 ? { kind: "none" } : { kind: "batch", ...batch };
  }

  /** One answer's JSON in pieces, or its -32000 when it is past the bound (a stream's answer is its first item). */
  pieces(request: unknown, response: JSONRPCResponse): string[] {
    return answerPieces(request, response, this.writer);
  }

  private async one(
    value: unknown,
    inBatch: boolean,
    refused: ReadonlyMap<unknown, GateRefusal>,
    contextOf: (request: Record<string, unknown>) => CallContext,
  ): Promise<JSONRPCResponse | null> {
    const refusal = refused.get(value);
    if (refusal) return isRecord(value) && !("id" in value) ? null : refusalResponse(refusal);
    const problem = notARequest(value);
    if (problem) return invalid(isRecord(value) ? value.id : null, problem);
    const request = value as { id?: unknown; method: string };
    if (this.options.streamsAlone && factsOf(request.method)?.streaming) {
      if (inBatch) return invalid(request.id, `${request.method} answers with a stream, which a batch cannot carry`);
      if (request.id === undefined || request.id === null)
        return invalid(null, `${request.method} answers with a stream, so it needs an id`);
    }
    return this.options.methods.receive(value as never, contextOf(value as Record<string, unknown>));
  }

  /** The answer's JSON within `maxBytes` (undefined past it); a stream's answer is its first item. */
  private encode(response: JSONRPCResponse, maxBytes: number): JsonPieces | undefined {
    const kept = keptAnswer(response, maxBytes);
    if (kept !== null) return kept;
    const result = response.result instanceof StreamReply ? { ...response, result: response.result.first } : response;
    try {
      return jsonPiecesWithin(result, maxBytes);
    } catch (error) {
      this.options.log(`internal error: cannot encode an answer: ${(error as Error).message}`);
      const text = JSON.stringify(errorResponse(response.id, A2A_CODES.internal, "Internal error"));
      return { pieces: [text], bytes: Buffer.byteLength(text) };
    }
  }
}

/**
 * A success whose result is kept JSON text (an ended task read again): the text jsonPiecesWithin writes for it, in
 * three pieces, measured without walking the answer (docs/benchmarks.md, "Where the cost is"); null for any other.
 * `{ jsonrpc, id, result }` is the object createJSONRPCSuccessResponse makes, in that order.
 */
function keptAnswer(response: JSONRPCResponse, maxBytes: number): JsonPieces | undefined | null {
  const { result, id } = response;
  if (!(result instanceof JsonText) || response.error !== undefined || response.jsonrpc !== "2.0") return null;
  if (typeof id !== "number" && typeof id !== "string" && id !== null) return null;
  let members = 0;
  for (const _ in response) members++;
  if (members !== 3) return null;
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  const text = result.text;
  const bytes = Buffer.byteLength(head) + result.bytesOf(text) + 1;
  return bytes > maxBytes ? undefined : { pieces: [head, text, "}"], bytes };
}

const invalid = (id: unknown, detail: string) =>
  errorResponse(id, A2A_CODES.invalidRequest, "Invalid Request", { detail });
