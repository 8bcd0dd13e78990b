// Answers within their bound, on every JSON-RPC binding (docs/reference.md, "Answer size"). A single answer past the
// bound becomes -32000 `response_too_large`; a batch runs a few entries at a time, in order, and writes each answer
// as it comes, counting its bytes; once the batch's answer would pass the bound, that entry and every one after it
// get the same error, and entries not yet begun are never run.
import type { JSONRPCResponse } from "json-rpc-2.0";
import { isRecord } from "../core/envelope/json-value.js";
import { CoreError } from "../core/errors.js";
import { AnswerBudget, type JsonPieces, jsonPiecesWithin, tooLargeWords } from "../operations/answer-budget.js";
import { MAX_HELD_TEXT } from "../operations/json-text.js";
import { familyOfMethod } from "../operations/table.js";
import { familyError } from "./rpc-messages.js";

/**
 * Entries of a batch that run at once: sends that wait on their tasks still overlap, and no more than this many
 * results are held unwritten (json-rpc-2.0 alone would run all 1000 together).
 */
export const BATCH_CONCURRENCY = 8;

export interface AnswerWriter {
  /** The bound of an answer, and of a batch's answer together. */
  maxBytes: number;
  /** The JSON of an answer within `maxBytes`, or undefined past it (src/operations/answer-budget.ts). */
  encode?(response: JSONRPCResponse, maxBytes: number): JsonPieces | undefined;
  /** An answer that was left out: what it holds open (a stream) is let go. */
  release?(response: JSONRPCResponse): void;
}

const idOf = (request: unknown): unknown => (isRecord(request) ? request.id : null);
const methodOf = (request: unknown): string | undefined =>
  isRecord(request) && typeof request.method === "string" ? request.method : undefined;

/** -32000 `response_too_large` in the shapes of the request's family, with the request's id. */
function tooLargeResponse(request: unknown, words: string, id: unknown = idOf(request)): JSONRPCResponse {
  const error = new CoreError("response_too_large", words, { reason: "response_too_large" });
  return familyError(id, familyOfMethod(methodOf(request)), error);
}

/** The JSON of one answer, or of its -32000 when it is past the bound. */
export function answerJson(request: unknown, response: JSONRPCResponse, writer: AnswerWriter): string {
  return answerPieces(request, response, writer).join("");
}

/** `answerJson` in pieces, to be written one after another. */
export function answerPieces(request: unknown, response: JSONRPCResponse, writer: AnswerWriter): string[] {
  const encode = writer.encode ?? jsonPiecesWithin;
  const json = encode(response, writer.maxBytes);
  if (json !== undefined) return json.pieces;
  writer.release?.(response);
  return [JSON.stringify(tooLargeResponse(request, tooLargeWords(writer.maxBytes), response.id))];
}

/** An answer's JSON, or how to make it again, in pieces, when its turn to be written comes. */
export type AnswerText = string | (() => string[]);

export interface BatchAnswer {
  /** Each entry's answer as JSON, in the batch's order (notifications have none). */
  texts: AnswerText[];
  /** The answers written in full (a stream among them is then followed). */
  written: JSONRPCResponse[];
}

/** Runs a batch's entries and writes their answers, the batch's answer within `writer.maxBytes` (plus the errors). */
export async function answerBatch(
  entries: readonly unknown[],
  run: (entry: unknown) => Promise<JSONRPCResponse | null>,
  writer: AnswerWriter,
): Promise<BatchAnswer> {
  const budget = new AnswerBudget(writer.maxBytes);
  const encode = writer.encode ?? jsonPiecesWithin;
  const running: Array<Promise<JSONRPCResponse | null>> = [];
  const answer: BatchAnswer = { texts: [], written: [] };
  let begun = 0;
  // A failure is thrown once every entry begun has settled, so none is left to reject unheard.
  let failure: { error: unknown } | undefined;
  const begin = (entry: unknown) =>
    run(entry).catch((error: unknown) => {
      failure ??= { error };
      return null;
    });
  for (let at = 0; at < entries.length; at++) {
    // Entries are begun only while the budget lasts, at most BATCH_CONCURRENCY ahead of the one being written.
    while (begun < entries.length && begun - at < BATCH_CONCURRENCY && !budget.exhausted)
      running.push(begin(entries[begun++]));
    const entry = entries[at];
    if (at >= begun) {
      // Never run: nothing is known of it but its request.
      if (isRecord(entry) && "id" in entry) answer.texts.push(JSON.stringify(tooLargeResponse(entry, notRun(budget))));
      continue;
    }
    const response = (await running[at]) ?? null;
    running[at] = Promise.resolve(null);
    if (response === null) continue;
    const json = budget.exhausted ? undefined : encode(response, budget.left);
    const bytes = json === undefined ? Number.POSITIVE_INFINITY : json.bytes;
    if (json !== undefined && budget.take(bytes)) {
      // Made again within the bytes it was counted at: a result that grew since is left out, the bound kept.
      const again = () =>
        encode(response, bytes)?.pieces ?? [JSON.stringify(tooLargeResponse(entry, leftOut(budget), response.id))];
      // A large answer is measured, let go and made again when written, in the pieces it is made of (MAX_HELD_TEXT).
      answer.texts.push(bytes > MAX_HELD_TEXT ? again : json.pieces.join(""));
      answer.written.push(response);
      continue;
    }
    budget.take(Number.POSITIVE_INFINITY);
    writer.release?.(response);
    answer.texts.push(JSON.stringify(tooLargeResponse(entry, leftOut(budget), response.id)));
  }
  if (failure) throw failure.error;
  return answer;
}

const notRun = (budget: AnswerBudget) =>
  `not run: the batch's answer reached its limit of ${budget.maxBytes} bytes before this request; send it again ` +
  "in a batch of its own";

const leftOut = (budget: AnswerBudget) =>
  `expected a batch answer of at most ${budget.maxBytes} bytes; this request ran, but its answer would pass the ` +
  "limit and is left out; ask for it on its own, or for less";
