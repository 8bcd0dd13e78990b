// How bench figures are judged (scripts/bench/judge.mjs): two of three full runs, ties without a goal, and the
// dispatch overhead by its paired median.
import assert from "node:assert/strict";
import { isAscii } from "node:buffer";
import { describe, it } from "node:test";
import { type Figure, isTie, judgeAll, judgeRuns, pairedOverhead, runsToMeet } from "../../scripts/bench/judge.mjs";

const SHAPES_MODULE = "../../scripts/bench/workspace/shapes/.aiwg/ops/adapters/sandbox-agent-runner/shapes.mjs";
const CHUNKS = [80, 2048, 65536];
const ESC = 0x1b;

/** A shapes cell as one full run prints it. */
const cell = (ratio: number, extra: Partial<Figure> = {}): Figure => ({
  name: "stream_throughput_shapes_stdio_ansi_65536",
  value: ratio * 100,
  baseline: 100,
  ratio,
  goal: ">= 0.95 x",
  meets: ratio >= 0.95,
  tie: false,
  ...extra,
});

describe("judgeRuns", () => {
  it("needs two of three runs, and every run when there are fewer", () => {
    assert.deepEqual([1, 2, 3].map(runsToMeet), [1, 2, 2]);
  });

  it("meets when two of three runs meet, with each run's ratio kept and the medians printed", () => {
    const judged = judgeRuns([cell(0.97), cell(0.9), cell(1.1)]);
    assert.equal(judged.meets, true);
    assert.equal(judged.runs, 3);
    assert.equal(judged.runs_met, 2);
    assert.deepEqual(judged.run_ratios, [0.97, 0.9, 1.1]);
    assert.equal(judged.ratio, 0.97);
    assert.equal(judged.value, 97);
  });

  it("does not meet when only one of three runs meets, however well it met", () => {
    const judged = judgeRuns([cell(0.94), cell(1.5), cell(0.93)]);
    assert.equal(judged.meets, false);
    assert.equal(judged.runs_met, 1);
  });

  it("judges one run by itself and says it was one", () => {
    assert.equal(judgeRuns([cell(0.96)]).meets, true);
    assert.equal(judgeRuns([cell(0.94)]).meets, false);
    assert.equal(judgeRuns([cell(0.94)]).runs, 1);
  });

  it("keeps a tie without a goal, whatever its ratios", () => {
    const tie = (ratio: number) => cell(ratio, { goal: null, meets: null, tie: true });
    const judged = judgeRuns([tie(0.8), tie(0.85), tie(0.9)]);
    assert.equal(judged.goal, null);
    assert.equal(judged.meets, null);
    assert.equal(judged.tie, true);
    assert.equal(judged.runs_met, null);
    assert.deepEqual(judged.run_ratios, [0.8, 0.85, 0.9]);
  });

  it("judges a group's figures name by name, in the first run's order", () => {
    const a = (ratio: number) => cell(ratio, { name: "a" });
    const b = (ratio: number) => cell(ratio, { name: "b" });
    const judged = judgeAll([
      [a(1), b(0.5)],
      [b(0.6), a(1)],
      [a(0.5), b(1)],
    ]);
    assert.deepEqual(
      judged.map(({ name, meets }) => [name, meets]),
      [
        ["a", true],
        ["b", false],
      ],
    );
  });
});

describe("isTie", () => {
  it("names the UTF-8 cells and the 80 B cells of plain ASCII, and no other", () => {
    const ties = ["lines", "ansi", "jsonl", "utf8"].flatMap((shape) =>
      CHUNKS.filter((chunk) => isTie(shape, chunk)).map((chunk) => `${shape} ${chunk}`),
    );
    assert.deepEqual(ties, ["lines 80", "jsonl 80", "utf8 80", "utf8 2048", "utf8 65536"]);
  });

  it("agrees with the shapes' bytes: only ANSI holds an escape, only UTF-8 is not ASCII", async () => {
    const { blockOf } = (await import(SHAPES_MODULE)) as { blockOf: (shape: string) => Buffer };
    const bytes = (shape: string) => {
      const block = blockOf(shape);
      return { ascii: isAscii(block), esc: block.includes(ESC) };
    };
    // With an escape, the encoder takes the byte way from 1 KiB: never a tie.
    assert.deepEqual(bytes("ansi"), { ascii: false, esc: true });
    // Neither ASCII nor with an escape: JSON.stringify at every size, a tie at every size.
    assert.deepEqual(bytes("utf8"), { ascii: false, esc: false });
    // Plain ASCII: the byte way from 4 KiB, so a tie only where its events stay smaller.
    assert.deepEqual(bytes("lines"), { ascii: true, esc: false });
    assert.deepEqual(bytes("jsonl"), { ascii: true, esc: false });
  });
});

describe("pairedOverhead", () => {
  it("is the median of the pairs' differences, not the difference of the medians", () => {
    // The pairs differ by 20, -10 and 10 ms: paired median 10, not under the goal; the medians differ by -10.
    const figure = pairedOverhead([100, 150, 200], [80, 160, 190]);
    assert.equal(figure.value, 10);
    assert.equal(figure.median_difference_ms, -10);
    assert.equal(figure.meets, false);
    assert.equal(figure.baseline, 160);
    assert.equal(figure.pairs, 3);
  });

  it("meets when the paired median is under 10 ms, however far apart the pairs are", () => {
    const figure = pairedOverhead([105, 205, 309], [100, 200, 300]);
    assert.equal(figure.value, 5);
    assert.equal(figure.meets, true);
  });
});
