// The first answers idempotency/v1 keeps (CONTRACT 9.1): at most `maxEntries` of them and `maxBytes` together, the
// oldest out first, each for `ttlMs`. Held in memory (within those bounds) and, with --state-dir, written through to
// the store so that a replay after a restart answers as before.
import type { KeptAnswer, KeptAnswerRows } from "../core/store.js";

export const DEFAULT_TTL_SECONDS = 86_400;
export const MAX_ENTRIES = 10_000;
export const MAX_BYTES = 64 * 1024 * 1024;
/** The longest answer kept as its very text; a larger one is kept as its task's id (a replay reads the task then). */
export const MAX_KEPT_TEXT_BYTES = 1024 * 1024;

export interface AnswerCacheOptions {
  ttlMs: number;
  maxEntries?: number;
  maxBytes?: number;
  now?: () => number;
  rows?: KeptAnswerRows;
  /** A write to the store failed: the cache goes on in memory. */
  warn?: (line: string) => void;
}

/** What an entry costs to hold: its text, its key and hash, and a little for the rest. */
export function entryBytes(answer: KeptAnswer): number {
  return answer.text.length + answer.key.length + answer.hash.length + 64;
}

export class AnswerCache {
  /** In the order they were kept: the first is the oldest. */
  private readonly entries = new Map<string, KeptAnswer>();
  private heldBytes = 0;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly now: () => number;

  constructor(private readonly options: AnswerCacheOptions) {
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.maxBytes = options.maxBytes ?? MAX_BYTES;
    this.now = options.now ?? Date.now;
    const loaded = this.quietly(() => options.rows?.load() ?? [], []);
    for (const answer of loaded) this.hold(answer);
    const gone = this.evict();
    const expired = loaded.filter((answer) => this.expired(answer) && this.entries.has(answer.key));
    for (const answer of expired) this.forget(answer.key);
    this.remove([...gone, ...expired.map((answer) => answer.key)]);
  }

  get size(): number {
    return this.entries.size;
  }

  get bytes(): number {
    return this.heldBytes;
  }

  /** The kept answer of `key`, unless it has expired (then it is forgotten). */
  get(key: string): KeptAnswer | undefined {
    const answer = this.entries.get(key);
    if (!answer || !this.expired(answer)) return answer;
    this.forget(key);
    this.remove([key]);
    return undefined;
  }

  /** Keeps `answer` (replacing one of the same key) and lets the oldest go while over a bound. */
  put(answer: KeptAnswer): void {
    if (entryBytes(answer) > this.maxBytes) return;
    this.forget(answer.key);
    this.hold(answer);
    const gone = this.evict();
    this.quietly(() => this.options.rows?.put(answer), undefined);
    this.remove(gone);
  }

  private expired(answer: KeptAnswer): boolean {
    return this.now() - answer.at >= this.options.ttlMs;
  }

  private hold(answer: KeptAnswer): void {
    this.forget(answer.key);
    this.entries.set(answer.key, answer);
    this.heldBytes += entryBytes(answer);
  }

  private forget(key: string): void {
    const answer = this.entries.get(key);
    if (!answer) return;
    this.entries.delete(key);
    this.heldBytes -= entryBytes(answer);
  }

  /** The keys let go to stay within the bounds, oldest first. */
  private evict(): string[] {
    const gone: string[] = [];
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries && this.heldBytes <= this.maxBytes) break;
      this.forget(key);
      gone.push(key);
    }
    return gone;
  }

  private remove(keys: string[]): void {
    if (keys.length > 0) this.quietly(() => this.options.rows?.delete(keys), undefined);
  }

  private quietly<T>(work: () => T, fallback: T): T {
    try {
      return work();
    } catch (error) {
      this.options.warn?.(`idempotency: cannot use the kept answers on disk (${(error as Error).message})`);
      return fallback;
    }
  }
}
