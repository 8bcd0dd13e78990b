// idempotency/v1 (CONTRACT 9.1), above the service and below the bindings: a send whose key (messageId) and request
// hash match a kept first answer gets that answer again instead of running; one that arrives while the first still
// runs waits for it; the same key with another hash is -32422. What a retry may cure is never kept. The key is kept
// the moment the send is accepted, before its process starts (as its task, read as it is when replayed), so a retry
// after a crash answers that task as it is then (failed, runtime_restarted) instead of running it again.
import { CoreError } from "../core/errors.js";
import type { KeptAnswer } from "../core/store.js";
import type { AnswerCache } from "./answer-cache.js";
import { A2A_CODES, type RpcError } from "./rpc-codes.js";

/** Refusals a retry may cure: never kept (CONTRACT 9.1). Internal errors are not the operation's answer either. */
const NEVER_KEPT: ReadonlySet<number> = new Set([
  A2A_CODES.serverBusy,
  A2A_CODES.extensionSupportRequired,
  A2A_CODES.versionNotSupported,
  A2A_CODES.internal,
  A2A_CODES.idempotencyKeyReused,
]);

/** What the first answer is kept as, or undefined when it is not kept. */
export type KeptForm = Pick<KeptAnswer, "kind" | "text">;

export interface IdempotentCall<T> {
  key: string;
  hash: string;
  /**
   * Runs the send; rejects with the error its client gets. `accepted` is called once the send is accepted, before
   * anything runs, with what a replay answers until the first answer is kept.
   */
  run(accepted: (form: KeptForm) => void): Promise<T>;
  /** How a result is kept. */
  keep(result: T): KeptForm;
  /** The JSON-RPC error a rejection of `run` stands for, when it is one. */
  errorOf(error: unknown): RpcError | undefined;
  /** Answers again from a kept entry (a result, a task, a stream), or throws its kept error. */
  replay(answer: KeptAnswer): Promise<T> | T;
}

export class Idempotency {
  /** First executions that have not answered yet, by key. */
  private readonly running = new Map<string, { hash: string; done: Promise<void> }>();

  constructor(
    readonly cache: AnswerCache,
    private readonly now: () => number = Date.now,
  ) {}

  /** The first answer (`replayed` false) or a replay of it. */
  async call<T>(call: IdempotentCall<T>): Promise<{ value: T; replayed: boolean }> {
    const { key, hash } = call;
    for (;;) {
      const first = this.running.get(key);
      if (first) {
        if (first.hash !== hash) throw reused(key, first.hash, hash);
        // A retry while the first still runs waits for its answer; an answer that was not kept is run again.
        await first.done;
        continue;
      }
      const kept = this.cache.get(key);
      if (kept) {
        if (kept.hash !== hash) throw reused(key, kept.hash, hash);
        return { value: await call.replay(kept), replayed: true };
      }
      return { value: await this.runFirst(call), replayed: false };
    }
  }

  private async runFirst<T>(call: IdempotentCall<T>): Promise<T> {
    let finished!: () => void;
    this.running.set(call.key, { hash: call.hash, done: new Promise<void>((resolve) => (finished = resolve)) });
    try {
      const result = await call.run((form) =>
        this.cache.put({ key: call.key, hash: call.hash, at: this.now(), ...form }),
      );
      this.cache.put({ key: call.key, hash: call.hash, at: this.now(), ...call.keep(result) });
      return result;
    } catch (error) {
      // An accepted send that then fails (a stream whose client left) keeps its accepted entry.
      const rpc = call.errorOf(error);
      if (rpc && !NEVER_KEPT.has(rpc.code)) {
        const text = JSON.stringify({ code: rpc.code, message: rpc.message, data: rpc.data });
        this.cache.put({ key: call.key, hash: call.hash, at: this.now(), kind: "error", text });
      }
      throw error;
    } finally {
      this.running.delete(call.key);
      finished();
    }
  }
}

/** -32422 (CONTRACT 9.1): the key is taken by another request; the kept entry stays as it is. */
function reused(key: string, original: string, submitted: string): CoreError {
  return new CoreError(
    "idempotency_key_reused",
    `messageId ${JSON.stringify(key)} was already used for another request (request hash ${original}, this one ${submitted}); use a new messageId for a new request`,
    {
      code: "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD",
      message_id: key,
      original_request_hash: original,
      submitted_request_hash: submitted,
    },
  );
}
