// How bench figures are judged (docs/benchmarks.md, "How figures are judged"): a ratio measured in several full runs
// meets its goal when it met it in two of three; a shapes cell in which both bridges run the same code is a tie with
// no goal; a dispatch overhead is the median of its paired differences. Pure: scripts/bench.mjs and the groups call it.
import { median } from "./lib.mjs";

/**
 * The `stream_throughput_shapes` cells, by shape and write size, in which our bridge and the plain one run the same
 * code, on either binding: their ratio is a coin toss (docs/benchmarks.md, "How figures are judged"). Our encoder leaves
 * JSON.stringify only for an output event of 1 KiB or more that holds an ANSI escape, or of 4 KiB or more that is
 * plain ASCII (src/a2a/wire/encode.ts). So:
 * - UTF-8 text holds no escape and is not ASCII: JSON.stringify at every size;
 * - 80-byte writes of plain ASCII (lines, JSON lines) bound the runner, and a bridge that keeps up reads them in
 *   events mostly under 4 KiB: JSON.stringify too (on a loaded machine the events grow, and some go the byte way).
 * The ANSI cells (their events pass 1 KiB even at 80 B) and the ASCII cells of 2 KiB and 64 KiB writes (read in
 * events of 40-65 KiB) take the byte way, and are judged.
 */
const TIES = { utf8: [80, 2048, 65536], lines: [80], jsonl: [80] };

export const isTie = (shape, chunk) => TIES[shape]?.includes(chunk) ?? false;

/** How many of `runs` full runs must meet the goal: two of three, and every run when there are fewer. */
export const runsToMeet = (runs) => Math.ceil((2 * runs) / 3);

/**
 * One figure from the same figure of each full run: its numbers are the medians over the runs, each run's ratio is
 * kept in `run_ratios`, and it meets when `runsToMeet` of the runs did. A figure without a goal (a tie) keeps
 * `meets: null`.
 */
export function judgeRuns(figures) {
  const [first] = figures;
  const numbers = Object.keys(first)
    .filter((key) => typeof first[key] === "number")
    .map((key) => [key, median(figures.map((figure) => figure[key]))]);
  const met = figures.filter((figure) => figure.meets === true).length;
  const judged = first.meets !== null;
  return {
    ...first,
    ...Object.fromEntries(numbers),
    meets: judged ? met >= runsToMeet(figures.length) : null,
    runs: figures.length,
    runs_met: judged ? met : null,
    run_ratios: figures.map((figure) => figure.ratio),
  };
}

/** The figures of a group run `runs.length` full times (a list of figures each), judged name by name. */
export const judgeAll = (runs) =>
  runs[0].map(({ name }) => judgeRuns(runs.map((figures) => figures.find((figure) => figure.name === name))));

/**
 * A dispatch overhead from pairs of timings (through the server, and the runner spawned directly, measured back to
 * back in alternating order): judged by the median of the pairs' differences, which load changing between pairs
 * sways less than the difference of the two medians (docs/benchmarks.md, "How figures are judged").
 */
export function pairedOverhead(viaMs, directMs, limitMs = 10) {
  const paired = median(viaMs.map((ms, i) => ms - directMs[i]));
  const via = median(viaMs);
  const direct = median(directMs);
  return {
    value: paired,
    unit: "ms",
    baseline: direct,
    ratio: via / direct,
    goal: `median of paired differences < ${limitMs} ms`,
    meets: paired < limitMs,
    median_difference_ms: via - direct,
    pairs: viaMs.length,
  };
}
