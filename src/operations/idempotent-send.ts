// One send under idempotency/v1 (CONTRACT 9.1): how its answer is kept, and given again. The table
// (src/operations/table.ts) hands it the send's operation; src/a2a/idempotency.ts runs it once per key.
import { MAX_KEPT_TEXT_BYTES } from "../a2a/answer-cache.js";
import { type IdempotentCall, keptCoreError } from "../a2a/idempotency.js";
import { isUuid, requestHash } from "../a2a/idempotency-hash.js";
import type { DecodedSend } from "../a2a/requests.js";
import type { RpcError } from "../a2a/rpc-codes.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { isRecord } from "../core/envelope/json-value.js";
import { CoreError } from "../core/errors.js";
import { logField } from "../core/log-field.js";
import type { CallContext } from "./context.js";
import { JsonText, valueJson } from "./json-text.js";
import type { OperationFacts, OperationKit, Replay } from "./operation.js";
import { RpcFailure } from "./rpc-failure.js";

/** The task a send answered with: `{ task }` in 1.0, the Task itself in 0.3. */
function taskOfResult(result: unknown): Record<string, unknown> | undefined {
  const task = isRecord(result) && isRecord(result.task) ? result.task : result;
  return isRecord(task) ? task : undefined;
}

function taskIdOf(result: unknown): string {
  const id = taskOfResult(result)?.id;
  return typeof id === "string" ? id : "";
}

/**
 * A kept answer that names its task (one over 1 MiB, a stream, one never given) cannot be given again once
 * --keep-tasks or --keep-bytes let the task go: the retry is told so in words, not replayed as a 404 that would
 * pass for the first answer, and the send is not run again (docs/reference.md, "The runtime's extensions").
 */
function refuseForgotten(kit: OperationKit, key: string, taskId: string): void {
  try {
    kit.service.head(taskId);
    return;
  } catch (error) {
    if (!(error instanceof CoreError) || error.code !== "task_not_found") throw error;
  }
  throw new CoreError(
    "task_not_found",
    `the first answer to messageId ${logField(key)} was task ${logField(taskId)}, which this server no longer keeps (--keep-tasks, --keep-bytes); the send is not run again: send it with a new messageId to run it anew`,
    { task_id: taskId, reason: "kept_task_forgotten", message_id: key },
  );
}

export interface IdempotentSendInput {
  facts: OperationFacts;
  replay: Replay;
  kit: OperationKit;
  key: string;
  /** The send as its codec decoded it, once: the hash reads it, and so does a replay. */
  send: DecodedSend;
  /** Runs the send (in `callContext`, which tells who is told of its acceptance). */
  run(callContext?: CallContext): Promise<unknown>;
  context: CallContext;
  log(line: string): void;
}

export function idempotentSend(input: IdempotentSendInput): IdempotentCall<unknown> {
  const { facts, replay, kit, key, send, run, context } = input;
  if (!isUuid(key))
    input.log(`idempotency: messageId ${logField(key)} is not a UUID; it is used as the key all the same`);
  return {
    key,
    hash: requestHash(facts.hashName, send.hashed),
    // Accepted, the send is kept as its task (or stream), so a retry after a crash never runs it again. Once given,
    // an answer goes out as the very text kept, so a replay is the same bytes: a blocking send's, a
    // returnImmediately send's (its task as it was then), an answer to a prompt's. Only an answer never given, or
    // one over 1 MiB, is read from the task as it is when replayed.
    run: async (accepted) => {
      const kind = facts.streaming ? "stream" : "task";
      const result = await run({ ...context, accepted: (taskId) => accepted({ kind, text: taskId }) });
      if (result instanceof StreamReply) return result;
      const text = valueJson(result);
      return text.length > MAX_KEPT_TEXT_BYTES ? result : new JsonText(text);
    },
    keep: (result) => {
      if (result instanceof StreamReply) return { kind: "stream", text: result.taskId };
      if (result instanceof JsonText) return { kind: "result", text: result.text };
      return { kind: "task", text: taskIdOf(result) };
    },
    replay: (answer) => {
      if (answer.kind === "task" || answer.kind === "stream") refuseForgotten(kit, key, answer.text);
      // Said even when the kept answer is an error (thrown below).
      context.replayed = true;
      if (answer.kind === "result") return new JsonText(answer.text);
      if (answer.kind === "task") return replay.task(kit, answer.text, send);
      if (answer.kind === "stream") return replay.stream(kit, answer.text);
      // The operation's own error, which each binding answers with its own table, as it did the first time.
      if (answer.kind === "core-error") throw keptCoreError(answer.text);
      // Kept by an earlier version as the family's JSON-RPC error (src/operations/rpc-failure.ts).
      throw new RpcFailure(JSON.parse(answer.text) as RpcError);
    },
  };
}
