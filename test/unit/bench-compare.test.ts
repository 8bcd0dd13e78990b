// How this build's bench figures are judged against another build's (scripts/bench/compare.mjs): pairing by name,
// round by round, which way is better, the tolerance from the rounds' noise, and what counts as worse.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import {
  compareFigure,
  compareGroup,
  directionOf,
  type Figure,
  measureOf,
  parseLines,
  thisFirst,
} from "../../scripts/bench/compare.mjs";

/** A figure with no baseline: its `value` is compared. */
const plain = (value: number | null, unit = "req/s", extra: Partial<Figure> = {}): Figure => ({
  name: "f",
  value,
  unit,
  baseline: null,
  ratio: null,
  goal: null,
  ...extra,
});

/** A figure against another program measured in the same run (node -e 0): its `ratio` is compared. */
const against = (value: number, baseline: number, unit = "ms"): Figure => ({
  name: "startup_validate_ms",
  value,
  unit,
  baseline,
  ratio: value / baseline,
  goal: "< 2.5 x node -e 0",
});

const compare = (thisRounds: (Figure | undefined)[], otherRounds: (Figure | undefined)[], floor?: number) =>
  compareFigure({ name: "f", group: "g", thisRounds, otherRounds, floor });

describe("directionOf", () => {
  it("reads every unit the bench prints: rates higher, times and sizes lower", () => {
    const units = {
      "req/s": "higher",
      "MiB/s": "higher",
      "lines/s": "higher",
      "tasks/s": "higher",
      ms: "lower",
      MiB: "lower",
      "µs CPU/request": "lower",
    };
    for (const [unit, better] of Object.entries(units)) assert.equal(directionOf({ unit, goal: null }), better, unit);
  });

  it("falls back on the goal's comparison, and says nothing when neither tells", () => {
    assert.equal(directionOf({ unit: null, goal: ">= 0.95 x" }), "higher");
    assert.equal(directionOf({ unit: null, goal: "≥ 3 ×" }), "higher");
    assert.equal(directionOf({ unit: null, goal: "< 4 x the same page" }), "lower");
    assert.equal(directionOf({ unit: null, goal: "none: a reference" }), null);
    assert.equal(directionOf({ unit: "things", goal: null }), null);
  });
});

describe("measureOf", () => {
  it("compares the ratio when every round has one against another program, else the value", () => {
    assert.equal(measureOf([against(150, 100), undefined, against(160, 90)]), "ratio");
    assert.equal(measureOf([against(150, 100), { ...against(3, 1), ratio: null }]), "value");
    assert.equal(measureOf([plain(3, "MiB", { name: "startup_validate_ms", baseline: 2, ratio: null })]), "value");
  });

  it("compares the value of a figure whose baseline is the build itself, where a ratio would hide a change", () => {
    // GetTask at 10 000 tasks against the same server at 1 000: a build 30 % slower at both has the same ratio.
    const slower = (ms: number, base: number): Figure => ({ ...against(ms, base), name: "scale_10k_get_task_p95_ms" });
    assert.equal(measureOf([slower(13, 10)]), "value");
    const result = compare([slower(13, 13), slower(13, 13)], [slower(10, 10), slower(10, 10)]);
    assert.equal(result.compared, "value");
    assert.equal(result.verdict, "worse");
  });
});

describe("compareFigure", () => {
  it("finds a rate 20 % lower in every round worse, by 25 % of this build's rate", () => {
    const result = compare([plain(80), plain(82), plain(84)], [plain(100), plain(102.5), plain(105)]);
    assert.equal(result.verdict, "worse");
    assert.equal(result.no_worse, false);
    assert.equal(result.better, "higher");
    assert.equal(result.compared, "value");
    assert.ok(Math.abs((result.worse_by ?? 0) - 0.25) < 1e-9);
    assert.ok(Math.abs((result.ratio ?? 0) - 0.8) < 1e-9);
    assert.equal(result.this, 82);
    assert.equal(result.other, 102.5);
    assert.equal(result.pairs, 3);
  });

  it("finds a time 3 % longer within the 5 % floor, and 10 % shorter better", () => {
    assert.equal(compare([plain(103, "ms")], [plain(100, "ms")]).verdict, "within");
    assert.equal(compare([plain(90, "ms")], [plain(100, "ms")]).verdict, "better");
    assert.equal(compare([plain(103, "ms")], [plain(100, "ms")], 0.02).verdict, "worse");
  });

  it("finds a figure worse only when its rounds are apart as well: this build's best worse than the other's worst", () => {
    // Each pair differs by the same 10 %, but the rounds overlap: within.
    const overlapping = compare(
      [plain(110, "ms"), plain(220, "ms"), plain(330, "ms")],
      [plain(100, "ms"), plain(200, "ms"), plain(300, "ms")],
    );
    assert.deepEqual([overlapping.verdict, overlapping.rounds_apart], ["within", false]);
    const apart = compare(
      [plain(110, "ms"), plain(115, "ms"), plain(120, "ms")],
      [plain(100, "ms"), plain(102, "ms"), plain(104, "ms")],
    );
    assert.deepEqual([apart.verdict, apart.rounds_apart], ["worse", true]);
    assert.ok(Math.abs((apart.tolerance ?? 0) - 0.05) < 1e-9);
  });

  it("finds the same code within: idempotent_replay_ms of two builds of one source, paired losses 7-15 %", () => {
    // A run of --against on two checkouts of the same source (load 8 to 5): the rounds overlap.
    const result = compare(
      [plain(0.664, "ms"), plain(0.746, "ms"), plain(0.769, "ms")],
      [plain(0.618, "ms"), plain(0.647, "ms"), plain(0.675, "ms")],
    );
    assert.ok((result.worse_by ?? 0) > 0.13);
    assert.equal(result.verdict, "within");
  });

  it("widens the tolerance to the rounds' noise: losses of 0.8, 1.2 and 1.25 are within", () => {
    const result = compare(
      [plain(80, "ms"), plain(120, "ms"), plain(125, "ms")],
      [plain(100, "ms"), plain(100, "ms"), plain(100, "ms")],
    );
    // Noise: sqrt(1.25 / 0.8) - 1 = 25 %, larger than the 20 % of the median loss.
    assert.ok(Math.abs((result.tolerance ?? 0) - 0.25) < 1e-9);
    assert.equal(result.verdict, "within");
  });

  it("compares the ratio against the same run's baseline, so a slower machine is not a worse build", () => {
    // This build's rounds ran while the machine was 40 % slower: its ms are worse, its ratios are the same.
    const result = compare([against(140, 70), against(280, 140)], [against(100, 50), against(200, 100)]);
    assert.equal(result.compared, "ratio");
    assert.equal(result.verdict, "within");
    assert.equal(result.worse_by, 0);
  });

  it("says what it could not judge, and counts only a missing figure as worse", () => {
    const missing = compare([undefined, undefined], [plain(1), plain(2)]);
    assert.equal(missing.verdict, "missing");
    assert.equal(missing.no_worse, false);
    const noValue = compare([plain(null), plain(null)], [plain(1), plain(2)]);
    assert.equal(noValue.verdict, "missing");
    assert.equal(noValue.no_worse, false);
    const newFigure = compare([plain(1)], [undefined]);
    assert.deepEqual([newFigure.verdict, newFigure.no_worse], ["unjudged", true]);
    const skipped = compare([plain(null)], [plain(null)]);
    assert.deepEqual([skipped.verdict, skipped.no_worse], ["unjudged", true]);
    const tie = compare([plain(1, "MiB/s", { tie: true })], [plain(2, "MiB/s", { tie: true })]);
    assert.deepEqual([tie.verdict, tie.no_worse], ["unjudged", true]);
    const noDirection = compare([plain(1, "things")], [plain(2, "things")]);
    assert.deepEqual([noDirection.verdict, noDirection.no_worse], ["unjudged", true]);
  });

  const rounds = fc.array(fc.integer({ min: 1, max: 1_000_000 }), { minLength: 1, maxLength: 7 });
  const unit = fc.constantFrom("req/s", "MiB/s", "ms", "MiB");
  /** Rounds of both builds: this build's number and the other's in each. */
  const pairedRounds = fc.array(fc.tuple(fc.integer({ min: 1, max: 10_000 }), fc.integer({ min: 1, max: 10_000 })), {
    minLength: 1,
    maxLength: 7,
  });

  it("never finds a build worse than itself", () => {
    fc.assert(
      fc.property(rounds, unit, (values, u) => {
        const figures = values.map((v) => plain(v, u));
        const result = compare(figures, figures);
        assert.equal(result.verdict, "within");
        assert.equal(result.worse_by, 0);
      }),
    );
  });

  it("finds A worse than B exactly when it finds B better than A", () => {
    fc.assert(
      fc.property(pairedRounds, unit, (pairs, u) => {
        const a = pairs.map(([x]) => plain(x, u));
        const b = pairs.map(([, y]) => plain(y, u));
        const ab = compare(a, b).verdict;
        const ba = compare(b, a).verdict;
        assert.equal(ab === "worse", ba === "better");
        assert.equal(ab === "within", ba === "within");
      }),
    );
  });

  it("never turns a figure worse by making this build better in every round", () => {
    fc.assert(
      fc.property(pairedRounds, fc.constantFrom(1.1, 1.5, 3), (pairs, k) => {
        const before = compare(
          pairs.map(([x]) => plain(x, "ms")),
          pairs.map(([, y]) => plain(y, "ms")),
        );
        const after = compare(
          pairs.map(([x]) => plain(x / k, "ms")),
          pairs.map(([, y]) => plain(y, "ms")),
        );
        if (before.verdict !== "worse") assert.notEqual(after.verdict, "worse");
      }),
    );
  });
});

describe("compareGroup", () => {
  const named = (name: string, value: number) => plain(value, "ms", { name });

  it("pairs figures by name whatever order each build printed them in, and keeps a repeated name apart", () => {
    const results = compareGroup(
      "g",
      [[named("a", 100), named("b", 10), named("b", 50)]],
      [[named("b", 10), named("a", 100), named("b", 40)]],
    );
    assert.deepEqual(
      results.map(({ name, verdict }) => [name, verdict]),
      [
        ["a", "within"],
        ["b", "within"],
        ["b#2", "worse"],
      ],
    );
  });

  it("makes a failed run of this build a worse line, and a failed run of the other an unjudged one", () => {
    const error = { ...plain(null), name: "g", error: "boom" };
    const mine = compareGroup("g", [[named("a", 100)], [error]], [[named("a", 100)], [named("a", 100)]]);
    const failed = mine.find((r) => r.verdict === "failed");
    assert.equal(failed?.no_worse, false);
    assert.match(failed?.reason ?? "", /round 2: boom/);
    assert.equal(mine.find((r) => r.name === "a")?.verdict, "within");

    const theirs = compareGroup("g", [[named("a", 100)]], [{ failed: "no figures; exit 1" }]);
    assert.deepEqual(
      theirs.map(({ name, verdict, no_worse }) => [name, verdict, no_worse]),
      [
        ["a", "unjudged", true],
        ["g", "unjudged", true],
      ],
    );
  });

  it("counts a run of this build that printed nothing as failed, and its figures as missing", () => {
    const results = compareGroup("g", [{ failed: "could not start" }], [[named("a", 1)]]);
    assert.deepEqual(
      results.map(({ name, verdict }) => [name, verdict]),
      [
        ["a", "missing"],
        ["g", "failed"],
      ],
    );
    assert.ok(results.every((r) => !r.no_worse));
  });
});

describe("parseLines and thisFirst", () => {
  it("reads one figure a line and counts what is not one", () => {
    const { figures, unreadable } = parseLines('{"name":"a","value":1}\n\nnot json\n[1]\n{"name":"b"}\n');
    assert.deepEqual(
      figures.map((f) => f.name),
      ["a", "b"],
    );
    assert.equal(unreadable, 2);
  });

  it("lets the builds take turns at going first", () => {
    assert.deepEqual([0, 1, 2, 3].map(thisFirst), [true, false, true, false]);
  });
});
