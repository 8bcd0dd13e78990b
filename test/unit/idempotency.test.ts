// idempotency/v1's pure parts (CONTRACT 9.1): the request hash (JCS canonical form, decoded params) and the bounds of
// the kept answers (entries, bytes, TTL), which hold whatever is put in, in whatever order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { AnswerCache, entryBytes } from "../../src/a2a/answer-cache.js";
import { Idempotency } from "../../src/a2a/idempotency.js";
import { idempotencyKey, requestHash } from "../../src/a2a/idempotency-hash.js";
import type { KeptAnswer, KeptAnswerRows } from "../../src/core/store.js";

const message = { messageId: "k1", role: "ROLE_USER", parts: [{ text: "hi", mediaType: "text/plain" }] };

describe("the request hash", () => {
  it("ignores key order, snake_case spellings, unknown fields, messageId and the service parameters", () => {
    const base = requestHash("SendMessage", "1.0", { message, configuration: { returnImmediately: true } });
    assert.match(base, /^[0-9a-f]{64}$/);
    const same = requestHash("SendMessage", "1.0", {
      metadata: { "a2a-service-parameters": { "A2A-Extensions": "x" } },
      configuration: { return_immediately: true, unknown: 1 },
      message: { parts: [{ media_type: "text/plain", text: "hi" }], role: "ROLE_USER", message_id: "other", extra: 2 },
    });
    assert.equal(same, base);
  });

  it("tells apart another text, another method and another family", () => {
    const base = requestHash("SendMessage", "1.0", { message });
    assert.notEqual(requestHash("SendMessage", "1.0", { message: { ...message, parts: [{ text: "ho" }] } }), base);
    assert.notEqual(requestHash("SendStreamingMessage", "1.0", { message }), base);
    assert.notEqual(requestHash("SendMessage", "0.3", { message: { ...message, role: "user" } }), base);
  });

  it("keys on messageId (either spelling)", () => {
    assert.equal(idempotencyKey({ message }), "k1");
    assert.equal(idempotencyKey({ message: { message_id: "k2" } }), "k2");
    assert.equal(idempotencyKey({ message: {} }), undefined);
  });
});

const answer = (key: string, text: string, at = 0): KeptAnswer => ({
  key,
  hash: "a".repeat(64),
  at,
  kind: "result",
  text,
});

/** Rows in memory, to see what the cache writes through. */
class Rows implements KeptAnswerRows {
  readonly rows = new Map<string, KeptAnswer>();
  load() {
    return [...this.rows.values()];
  }
  put(a: KeptAnswer) {
    this.rows.delete(a.key);
    this.rows.set(a.key, a);
  }
  delete(keys: readonly string[]) {
    for (const key of keys) this.rows.delete(key);
  }
}

describe("the kept answers", () => {
  it("never hold more than their bounds, in memory or in the rows, the oldest going first", () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.string({ maxLength: 300 })), { maxLength: 200 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 200, max: 3000 }),
        (puts, maxEntries, maxBytes) => {
          const rows = new Rows();
          const cache = new AnswerCache({ ttlMs: 60_000, maxEntries, maxBytes, rows, now: () => 0 });
          for (const [key, text] of puts) {
            cache.put(answer(`k${key}`, text));
            assert.ok(cache.size <= maxEntries);
            assert.ok(cache.bytes <= maxBytes);
            assert.ok(rows.rows.size <= maxEntries);
            const rowBytes = [...rows.rows.values()].reduce((sum, a) => sum + entryBytes(a), 0);
            assert.equal(rowBytes, cache.bytes);
          }
          const last = puts.at(-1);
          if (last && entryBytes(answer(`k${last[0]}`, last[1])) <= maxBytes)
            assert.equal(cache.get(`k${last[0]}`)?.text, last[1], "the newest entry stays");
        },
      ),
    );
  });

  it("10 000 entries and 64 MiB by default; loading rows over the bounds keeps the newest", () => {
    const rows = new Rows();
    for (let i = 0; i < 10_050; i++) rows.put(answer(`k${i}`, "x"));
    const cache = new AnswerCache({ ttlMs: 60_000, rows, now: () => 0 });
    assert.equal(cache.size, 10_000);
    assert.equal(rows.rows.size, 10_000);
    assert.equal(cache.get("k49"), undefined);
    assert.ok(cache.get("k50"));
    cache.put(answer("big", "y".repeat(40 * 1024 * 1024)));
    cache.put(answer("big2", "y".repeat(40 * 1024 * 1024)));
    assert.equal(cache.get("big"), undefined, "64 MiB: the older large entry went");
    assert.ok(cache.bytes <= 64 * 1024 * 1024);
  });

  it("an entry past its TTL is gone", () => {
    let now = 0;
    const cache = new AnswerCache({ ttlMs: 1000, now: () => now });
    cache.put(answer("k", "x", 0));
    now = 999;
    assert.ok(cache.get("k"));
    now = 1000;
    assert.equal(cache.get("k"), undefined);
  });
});

describe("Idempotency.call", () => {
  it("runs concurrent calls of one key once, and -32422 for another hash", async () => {
    const idempotency = new Idempotency(new AnswerCache({ ttlMs: 60_000 }));
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const call = (hash: string) =>
      idempotency.call({
        key: "k",
        hash,
        run: async () => {
          runs += 1;
          await gate;
          return "first";
        },
        keep: (result) => ({ kind: "result", text: result }),
        errorOf: () => undefined,
        replay: (kept) => kept.text,
      });
    const calls = Array.from({ length: 20 }, () => call("h1"));
    await assert.rejects(call("h2"), /already used/);
    release();
    const answers = await Promise.all(calls);
    assert.equal(runs, 1);
    assert.ok(answers.every((a) => a.value === "first"));
    assert.equal(answers.filter((a) => !a.replayed).length, 1);
  });
});
