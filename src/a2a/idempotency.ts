// idempotency/v1 (CONTRACT 9.1), above the service and below the bindings: a send whose key (messageId) and request
// hash match a kept first answer gets that answer again instead of running; one that arrives while the first still
// runs waits for it; the same key with another hash is -32422. What a retry may cure is never kept. The key is kept
// the moment the send is accepted, before its process starts (as its task, read as it is when replayed), so a retry
// after a crash answers that task as it is then (failed, runtime_restarted) instead of running it again.
import { CORE_ERROR_CODES, CoreError, type CoreErrorCode } from "../core/errors.js";
import type { KeptAnswer } from "../core/store.js";
import type { AnswerCache } from "./answer-cache.js";

/**
 * Refusals a retry may cure: never kept (CONTRACT 9.1), those each family answers as "server busy" among them.
 * Only a CoreError is the operation's answer: an internal error is never kept either.
 */
const NEVER_KEPT: ReadonlySet<CoreErrorCode> = new Set<CoreErrorCode>([
  "busy",
  "shutting_down",
  "slow_consumer",
  "response_too_large",
  "extension_support_required",
  "version_not_supported",
  "idempotency_key_reused",
]);

/**
 * A kept error is the operation's own CoreError (kind "core-error"), so a replay throws it again and each binding
 * answers it with its own table exactly as the first time (docs/architecture.md, "Idempotent sends"). The kind
 * "error" of earlier versions held the family's JSON-RPC error; it is still read (src/operations/idempotent-send.ts).
 */
export function keptErrorText(error: CoreError): string {
  return JSON.stringify({ code: error.code, message: error.message, data: error.data });
}

/** The CoreError a "core-error" entry keeps; throws a plain Error for text no version of this runtime wrote. */
export function keptCoreError(text: string): CoreError {
  const kept = JSON.parse(text) as { code?: unknown; message?: unknown; data?: unknown };
  const known = (CORE_ERROR_CODES as readonly unknown[]).includes(kept?.code);
  if (!known || typeof kept.message !== "string" || typeof kept.data !== "object" || kept.data === null)
    throw new Error(`a kept idempotency error of the wrong shape: ${text.slice(0, 200)}`);
  return new CoreError(kept.code as CoreErrorCode, kept.message, kept.data as CoreError["data"]);
}

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
  /** Answers again from a kept entry (a result, a task, a stream), or throws its kept error. */
  replay(answer: KeptAnswer): Promise<T> | T;
}

/**
 * The rule a kept hash was made by, written before it: since the hash is made from the params as their codec decoded
 * them (src/a2a/decode.ts), a 0.3 name spelled in snake_case is an unknown field, dropped, where the earlier rule
 * (a bare hash, in state dirs written before) read it as its camelCase name. A bare hash that matches is the same
 * request under both rules; one that does not cannot tell a respelled request from another payload, so its entry is
 * dropped and the send runs as a first one (docs/reference.md, "The runtime's extensions").
 */
export const HASH_RULE = "v2:";

/** The hash a kept entry was made with, and whether by the current rule. */
function keptHash(hash: string): { hash: string; current: boolean } {
  return hash.startsWith(HASH_RULE) ? { hash: hash.slice(HASH_RULE.length), current: true } : { hash, current: false };
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
        const made = keptHash(kept.hash);
        if (made.hash === hash) return { value: await call.replay(kept), replayed: true };
        if (made.current) throw reused(key, made.hash, hash);
      }
      return { value: await this.runFirst(call), replayed: false };
    }
  }

  private async runFirst<T>(call: IdempotentCall<T>): Promise<T> {
    const hash = HASH_RULE + call.hash;
    let finished!: () => void;
    this.running.set(call.key, { hash: call.hash, done: new Promise<void>((resolve) => (finished = resolve)) });
    try {
      const result = await call.run((form) => this.cache.put({ key: call.key, hash, at: this.now(), ...form }));
      this.cache.put({ key: call.key, hash, at: this.now(), ...call.keep(result) });
      return result;
    } catch (error) {
      // An accepted send that then fails (a stream whose client left) keeps its accepted entry.
      if (error instanceof CoreError && !NEVER_KEPT.has(error.code)) {
        const text = keptErrorText(error);
        this.cache.put({ key: call.key, hash, at: this.now(), kind: "core-error", text });
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
