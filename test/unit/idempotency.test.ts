// idempotency/v1's pure parts (CONTRACT 9.1): the request hash (JCS canonical form, decoded params) and the bounds of
// the kept answers (entries, bytes, TTL), which hold whatever is put in, in whatever order.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { AnswerCache, entryBytes } from "../../src/a2a/answer-cache.js";
import { Idempotency, keptCoreError } from "../../src/a2a/idempotency.js";
import { idempotencyKey, isUuid, refuseNonUuidMessageId, requestHash } from "../../src/a2a/idempotency-hash.js";
import { decodeSend03 } from "../../src/a2a/v0_3/decode.js";
import { decodeSend10 } from "../../src/a2a/v1_0/decode.js";
import { CoreError } from "../../src/core/errors.js";
import type { KeptAnswer, KeptAnswerRows } from "../../src/core/store.js";

const message = { messageId: "k1", role: "ROLE_USER", parts: [{ text: "hi", mediaType: "text/plain" }] };
const message03 = { kind: "message", messageId: "k1", role: "user", parts: [{ kind: "text", text: "hi" }] };

/** The hash of a send's params, as its family's codec decodes them. */
const hashOf = (method: string, family: "0.3" | "1.0", params: unknown) =>
  requestHash(method, (family === "1.0" ? decodeSend10 : decodeSend03)(params).hashed);

describe("the request hash", () => {
  it("ignores key order, snake_case spellings, unknown fields, messageId and the service parameters", () => {
    const base = hashOf("SendMessage", "1.0", { message, configuration: { returnImmediately: true } });
    assert.match(base, /^[0-9a-f]{64}$/);
    const same = hashOf("SendMessage", "1.0", {
      metadata: { "a2a-service-parameters": { "A2A-Extensions": "x" } },
      configuration: { return_immediately: true, unknown: 1 },
      message: { parts: [{ media_type: "text/plain", text: "hi" }], role: "ROLE_USER", message_id: "other", extra: 2 },
    });
    assert.equal(same, base);
  });

  it("tells apart another text, another method and another family", () => {
    const base = hashOf("SendMessage", "1.0", { message });
    assert.notEqual(hashOf("SendMessage", "1.0", { message: { ...message, parts: [{ text: "ho" }] } }), base);
    assert.notEqual(hashOf("SendStreamingMessage", "1.0", { message }), base);
    assert.notEqual(hashOf("SendMessage", "0.3", { message: { ...message, role: "user" } }), base);
  });

  it("is made of the params as 0.3 decodes them: a snake_case name is an unknown field there, dropped", () => {
    const base = hashOf("SendMessage", "0.3", { message: message03 });
    assert.equal(hashOf("SendMessage", "0.3", { message: { ...message03, context_id: "c", extra: 1 } }), base);
    assert.notEqual(hashOf("SendMessage", "0.3", { message: { ...message03, contextId: "c" } }), base);
    assert.equal(
      hashOf("SendMessage", "0.3", { message: message03, configuration: { history_length: 2 } }),
      hashOf("SendMessage", "0.3", { message: message03, configuration: {} }),
    );
  });

  it("is the one the service's request was decoded with: a request that cannot be decoded still has one", () => {
    assert.match(hashOf("SendMessage", "1.0", "not an object"), /^[0-9a-f]{64}$/);
    assert.throws(() => decodeSend10("not an object").request(), /expected SendMessageRequest/);
    const send = decodeSend10({ message: { ...message, context_id: "c" }, configuration: { history_length: 2 } });
    assert.equal(send.request().historyLength, 2);
    assert.equal(send.request().message.seen.contextId, "c");
    assert.strictEqual(send.request(), send.request(), "decoded once");
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

describe("the messageId a runtime that requires idempotency/v1 takes (§7.1, CONTRACT 9.1)", () => {
  /** The refusal of a send whose messageId is `id`, or undefined when it is taken. */
  const refusal = (id: unknown, field = "messageId") => {
    try {
      refuseNonUuidMessageId({ message: { [field]: id, role: "ROLE_USER", parts: [] } });
      return undefined;
    } catch (error) {
      assert.ok(error instanceof CoreError);
      return error;
    }
  };
  const HEX = "0123456789abcdefABCDEF".split("");

  it("takes a UUID of any version in its canonical 8-4-4-4-12 form, in either case (by property)", () => {
    fc.assert(
      fc.property(fc.uuid(), fc.boolean(), (uuid, upper) => {
        const id = upper ? uuid.toUpperCase() : uuid;
        assert.equal(isUuid(id), true);
        assert.equal(refusal(id), undefined);
        assert.equal(refusal(id, "message_id"), undefined);
      }),
    );
    for (const id of ["00000000-0000-4000-8000-000000000000", "01890a5d-ac96-774b-bcce-b302099a8057"])
      assert.equal(refusal(id), undefined, id);
  });

  it("refuses anything else with -32602 at /message/messageId, reason message_id_not_uuid (by property)", () => {
    // A UUID with one change: a character cut, one added, a dash moved, a non-hex digit, braces or spaces around.
    const damaged = fc
      .tuple(fc.uuid(), fc.nat(35), fc.constantFrom("cut", "add", "swap", "nonhex", "wrap"))
      .map(([uuid, at, how]) => {
        if (how === "cut") return uuid.slice(0, at) + uuid.slice(at + 1);
        if (how === "add") return `${uuid.slice(0, at)}${HEX[at % HEX.length]}${uuid.slice(at)}`;
        if (how === "swap") return uuid.replace("-", "").replace(/^(.)/, "$1-");
        if (how === "wrap") return [`{${uuid}}`, ` ${uuid}`, `${uuid}\n`, `urn:uuid:${uuid}`][at % 4] as string;
        const index = [0, 9, 14, 19, 24][at % 5] as number;
        return `${uuid.slice(0, index)}g${uuid.slice(index + 1)}`;
      });
    const other = fc.oneof(damaged, fc.string(), fc.integer(), fc.constant(undefined), fc.constant(null));
    fc.assert(
      fc.property(other, (id) => {
        if (typeof id === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id))
          return;
        const error = refusal(id);
        assert.ok(error, `refused: ${JSON.stringify(id)}`);
        assert.equal(error.code, "invalid_params");
        assert.deepEqual(
          error.data.errors?.map((e) => [e.path, e.code]),
          [["/message/messageId", "message_id_not_uuid"]],
        );
        assert.match(error.message, /expected a messageId that is a UUID .*, found /);
      }),
    );
  });

  it("says what it found, cut to 100 characters", () => {
    assert.match(
      String(refusal("k".repeat(5000))?.message),
      /found "k{100}"… \(5000 characters\) at \/message\/messageId$/,
    );
    assert.match(String(refusal(7)?.message), /found a number at /);
    assert.match(String(refusal(undefined)?.message), /found none at /);
  });
});

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

  it("keeps an operation's error as the CoreError it is, and never one a retry may cure", async () => {
    const cache = new AnswerCache({ ttlMs: 60_000 });
    const idempotency = new Idempotency(cache);
    const call = (key: string, error: Error) =>
      idempotency.call<string>({
        key,
        hash: "h",
        run: async () => {
          throw error;
        },
        keep: (result) => ({ kind: "result", text: result }),
        replay: (kept) => {
          throw keptCoreError(kept.text);
        },
      });
    const refused = new CoreError("task_not_found", "task not found: t1", { task_id: "t1" });
    await assert.rejects(call("k", refused), refused);
    assert.equal(cache.get("k")?.kind, "core-error");
    await assert.rejects(call("k", new Error("not run")), (error) => {
      assert.ok(error instanceof CoreError && error !== refused);
      assert.deepEqual([error.code, error.message, error.data], [refused.code, refused.message, refused.data]);
      return true;
    });
    for (const [key, error] of [
      ["busy", new CoreError("busy", "queue full", { reason: "queue_full" })],
      ["internal", new Error("a fault of ours")],
    ] as const) {
      await assert.rejects(call(key, error), error);
      assert.equal(cache.get(key), undefined, key);
    }
  });

  it("keeps the hash after its rule; a bare hash of the earlier rule replays when it matches, else is dropped", async () => {
    const rows = new Rows();
    const bare = (key: string, hash: string): KeptAnswer => ({ key, hash, at: 0, kind: "result", text: "kept" });
    rows.put(bare("same", "a".repeat(64)));
    rows.put(bare("respelled", "b".repeat(64)));
    rows.put({ ...bare("current", "c".repeat(64)), hash: `v2:${"c".repeat(64)}` });
    const cache = new AnswerCache({ ttlMs: 60_000, rows, now: () => 0 });
    const idempotency = new Idempotency(cache, () => 0);
    const call = (key: string, hash: string) =>
      idempotency.call<string>({
        key,
        hash,
        run: async () => "ran",
        keep: (result) => ({ kind: "result", text: result }),
        replay: (kept) => kept.text,
      });
    assert.deepEqual(await call("same", "a".repeat(64)), { value: "kept", replayed: true });
    assert.deepEqual(await call("respelled", "d".repeat(64)), { value: "ran", replayed: false });
    assert.equal(rows.rows.get("respelled")?.hash, `v2:${"d".repeat(64)}`);
    assert.deepEqual(await call("respelled", "d".repeat(64)), { value: "ran", replayed: true });
    await assert.rejects(call("current", "e".repeat(64)), (error) => {
      assert.ok(error instanceof CoreError && error.code === "idempotency_key_reused");
      assert.equal(error.data.original_request_hash, "c".repeat(64));
      return true;
    });
  });

  it("refuses a kept error of the wrong shape instead of inventing one", () => {
    assert.throws(() => keptCoreError('{"code":"no_such_code","message":"m","data":{}}'), /wrong shape/);
    assert.throws(() => keptCoreError('{"code":"busy","data":{}}'), /wrong shape/);
  });
});
