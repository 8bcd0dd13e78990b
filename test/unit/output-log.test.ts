// OutputLog: a bounded record of one stream, the first part and the most recent, dropped bytes counted exactly.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import fc from "fast-check";
import { type OutputChunk, OutputLog } from "../../src/core/task/output-log.js";

let nextSeq = 0;
function chunk(text: string, seq = ++nextSeq): OutputChunk {
  return { seq, stream: "stdout", text, bytes: Buffer.byteLength(text) };
}

/** Appends chunks of these byte sizes (ASCII, so bytes = characters); returns them. */
function fill(log: OutputLog, sizes: readonly number[]): OutputChunk[] {
  return sizes.map((size, index) => {
    const appended = chunk(String.fromCharCode(97 + (index % 26)).repeat(size), index + 1);
    log.append(appended);
    return appended;
  });
}

const sum = (chunks: readonly OutputChunk[]) => chunks.reduce((total, item) => total + item.bytes, 0);

/**
 * What the log must keep of `all`: the first chunk and the longest prefix that fits half the limit, then (once anything went past
 * it) the longest suffix of the rest that fits the other half, but at least the last chunk.
 */
function expected(limit: number, all: readonly OutputChunk[]) {
  let headEnd = 0;
  let headBytes = 0;
  while (headEnd < all.length && (headEnd === 0 || headBytes + (all[headEnd] as OutputChunk).bytes <= limit / 2)) {
    headBytes += (all[headEnd] as OutputChunk).bytes;
    headEnd += 1;
  }
  let tailStart = all.length;
  let tailBytes = 0;
  while (tailStart > headEnd) {
    const before = all[tailStart - 1] as OutputChunk;
    if (tailStart < all.length && tailBytes + before.bytes > limit / 2) break;
    tailBytes += before.bytes;
    tailStart -= 1;
  }
  return {
    kept: [...all.slice(0, headEnd), ...all.slice(tailStart)],
    dropped: all.slice(headEnd, tailStart),
  };
}

describe("OutputLog", () => {
  it("keeps everything while it fits, in order", () => {
    const log = new OutputLog(100);
    const all = fill(log, [10, 20, 5, 15]);
    assert.deepEqual(log.chunks(), all);
    assert.equal(log.totalBytes, 50);
    assert.equal(log.keptBytes, 50);
    assert.equal(log.droppedBytes, 0);
  });

  it("keeps the head and the most recent tail, dropping the middle, with exact counts", () => {
    const log = new OutputLog(100);
    const all = fill(
      log,
      Array.from({ length: 40 }, () => 10),
    );
    const kept = log.chunks();
    // Head: the first 50 bytes (5 chunks); tail: the last 50 bytes (5 chunks).
    assert.deepEqual(kept, [...all.slice(0, 5), ...all.slice(35)]);
    assert.equal(log.totalBytes, 400);
    assert.equal(log.keptBytes, 100);
    assert.equal(log.droppedBytes, 300);
    assert.equal(log.keptBytes + log.droppedBytes, log.totalBytes);
  });

  it("the head is a contiguous prefix: a chunk that does not fit ends it, even if later ones would fit", () => {
    const log = new OutputLog(100);
    const all = fill(log, [30, 30, 5, 5]);
    // 30 fits the head (≤ 50); the second 30 does not, so it and everything after belong to the tail.
    assert.deepEqual(log.chunks(), all);
    assert.equal(log.droppedBytes, 0);
    fill(log, [40]);
    // Tail was 30+5+5 = 40; adding 40 makes 80 > 50: the oldest tail chunks go until it fits.
    assert.deepEqual(
      log.chunks().map((item) => item.bytes),
      [30, 5, 5, 40],
    );
    assert.equal(log.droppedBytes, 30);
    assert.equal(log.totalBytes, 110);
  });

  it("a chunk larger than half the limit is kept whole as the only tail chunk (the limit overshoots by it)", () => {
    const log = new OutputLog(100);
    fill(log, [10, 10, 10, 10, 10, 10]);
    const big = chunk("x".repeat(80));
    log.append(big);
    assert.deepEqual(log.chunks().at(-1), big);
    assert.equal(log.chunks().length, 6, "head of 5 chunks plus the big one");
    assert.equal(log.droppedBytes, 10);
    assert.equal(log.keptBytes, 130);
    assert.equal(log.totalBytes, 140);
  });

  it("counts bytes, not characters (multi-byte UTF-8)", () => {
    const log = new OutputLog(8);
    log.append(chunk("€")); // 3 bytes
    log.append(chunk("é")); // 2 bytes: 5 > 4, to the tail
    log.append(chunk("𝄞")); // 4 bytes: tail 6 > 4, "é" dropped
    assert.deepEqual(
      log.chunks().map((item) => item.text),
      ["€", "𝄞"],
    );
    assert.equal(log.droppedBytes, 2);
    assert.equal(log.totalBytes, 9);
  });

  it("stays exact over many small chunks (internal compaction included)", () => {
    const limit = 1000;
    const log = new OutputLog(limit);
    const sizes = Array.from({ length: 20_000 }, (_, index) => 1 + (index % 7));
    const all = fill(log, sizes);
    const want = expected(limit, all);
    assert.deepEqual(log.chunks(), want.kept);
    assert.equal(log.droppedBytes, sum(want.dropped));
    assert.equal(log.totalBytes, sum(all));
    assert.ok(log.keptBytes <= limit);
  });

  it("property: head + most-recent tail within the limit, exact dropped and total bytes, order kept", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 400 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 300 }),
        (limit, rawSizes) => {
          const sizes = rawSizes.map((size) => size % (Math.floor(limit / 2) + 1));
          const log = new OutputLog(limit);
          const all = fill(log, sizes);
          const kept = log.chunks();
          const want = expected(limit, all);
          assert.deepEqual(kept, want.kept);
          assert.equal(log.totalBytes, sum(all));
          assert.equal(log.droppedBytes, sum(want.dropped));
          assert.equal(log.keptBytes, sum(kept));
          assert.equal(log.keptBytes + log.droppedBytes, log.totalBytes);
          // Chunks no larger than half the limit: the log never holds more than the limit.
          assert.ok(log.keptBytes <= limit, `kept ${log.keptBytes} > ${limit}`);
          // Order: seq strictly increasing, and what was dropped is one contiguous middle run.
          for (let i = 1; i < kept.length; i++)
            assert.ok((kept[i] as OutputChunk).seq > (kept[i - 1] as OutputChunk).seq);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("property: with any chunk sizes, totals are exact and at least the last chunk is kept", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 500 }), { minLength: 1, maxLength: 200 }),
        (limit, sizes) => {
          const log = new OutputLog(limit);
          const all = fill(log, sizes);
          const kept = log.chunks();
          assert.deepEqual(kept.at(-1), all.at(-1));
          assert.equal(log.totalBytes, sum(all));
          assert.equal(log.keptBytes, sum(kept));
          assert.equal(log.keptBytes + log.droppedBytes, log.totalBytes);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("property: chunksSince gives what came in after a seq; droppedBetween bounds exactly the dropped chunks", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 200 }),
        fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 200 }),
        fc.nat(220),
        (limit, sizes, since) => {
          const log = new OutputLog(limit);
          const all = fill(log, sizes);
          const kept = log.chunks();
          assert.deepEqual(
            log.chunksSince(since),
            kept.filter((item) => item.seq > since),
          );
          const between = log.droppedBetween;
          const keptSeqs = new Set(kept.map((item) => item.seq));
          for (const item of all) {
            const inGap = between !== undefined && item.seq > between[0] && item.seq < between[1];
            assert.equal(inGap, !keptSeqs.has(item.seq), `chunk ${item.seq}`);
          }
        },
      ),
      { numRuns: 500 },
    );
  });

  it("restore carries the dropped count and the kept chunks", () => {
    const log = new OutputLog(100);
    fill(
      log,
      Array.from({ length: 30 }, () => 10),
    );
    const restored = OutputLog.restore(100, log.chunks(), log.droppedBytes);
    assert.deepEqual(restored.chunks(), log.chunks());
    assert.equal(restored.droppedBytes, log.droppedBytes);
    assert.equal(restored.totalBytes, log.totalBytes);
  });

  it("keeps a first chunk larger than half the limit as the first part", () => {
    const log = new OutputLog(10);
    const first = chunk("x".repeat(20));
    log.append(first);
    for (let i = 0; i < 5; i++) log.append(chunk("y".repeat(4)));
    assert.deepEqual(log.chunks()[0], first);
  });

  it("lets go of dropped chunks at once (they can be collected)", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const log = new OutputLog(100);
    const refs: WeakRef<OutputChunk>[] = [];
    for (let i = 0; i < 60; i++) {
      const next = chunk("z".repeat(10));
      if (i > 10 && i < 30) refs.push(new WeakRef(next));
      log.append(next);
    }
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    assert.equal(refs.filter((ref) => ref.deref() !== undefined).length, 0, "dropped chunks are still held");
    assert.ok(log.droppedBytes > 0);
  });
});
