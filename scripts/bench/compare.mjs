// How this build's figures are judged against another build's, measured in the same run (docs/benchmarks.md, "How
// figures are judged", "Against another build"). Pure: scripts/bench/against.mjs runs the rounds and calls it.
/** The least tolerance, as a fraction: a figure is worse only when worse by more than this (and than its noise). */
export const DEFAULT_FLOOR = 0.05;

/**
 * Which way is better for a figure: from its unit (a rate, `…/s`, higher; a time or a size lower), else from its
 * goal (`>=`/`≥`/`>` higher, `<`/`≤` lower), else null (not judged).
 */
export function directionOf({ unit, goal }) {
  if (typeof unit === "string") {
    if (/\/s$/.test(unit)) return "higher";
    if (/^(ms|s|µs|us|B|KiB|MiB|GiB)(\b|\s|$)/.test(unit)) return "lower";
  }
  if (typeof goal === "string") {
    if (/^\s*(>=|≥|>)/.test(goal)) return "higher";
    if (/^\s*(<=|≤|<)/.test(goal)) return "lower";
  }
  return null;
}

/** The median, as the mean of the two middle numbers for an even count: negating every number negates it exactly. */
function middle(numbers) {
  const sorted = [...numbers].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

const finite = (x) => typeof x === "number" && Number.isFinite(x);

/**
 * The figures whose baseline runs none of the build's code (node alone, a direct spawn of the runner, the raw or the
 * JSON pipe, the SDK's servers, a minimal Hono app): their ratio takes the machine's load off the figure and nothing
 * else. Every other baseline is the build measuring itself (its bridge without --state-dir or with JSON.stringify, its
 * own JSON-RPC, its server at 1 000 tasks or idle, its SSE): a ratio to it would hide a change that moves both.
 */
export const RATIO_AGAINST_OTHER_PROGRAMS = new Set([
  "startup_validate_ms",
  "startup_version_ms",
  "startup_screen_ms",
  "dispatch_overhead_ms",
  "http_dispatch_overhead_ms",
  "http_dispatch_overhead_dead_webhook_ms",
  "stream_throughput_mib_s",
  "stream_throughput_vs_json_pipe",
  "stream_throughput_v1_vs_json_pipe",
  "http_sse_throughput_vs_json_pipe",
  "http_get_task_rps",
  "grpc_get_task_rps",
  "http_get_task_cpu_us_per_request",
  "concurrency_tasks_per_s",
  "prompt_roundtrip_expect_p50_ms",
]);

/**
 * The number compared: `ratio` for a figure whose baseline is another program, when every round on both sides has
 * one (the baseline, measured in the same run, takes the load off it), else `value`.
 */
export function measureOf(figures) {
  const present = figures.filter(Boolean);
  const ratioEverywhere =
    present.length > 0 &&
    RATIO_AGAINST_OTHER_PROGRAMS.has(present[0].name) &&
    present.every((figure) => finite(figure.ratio) && figure.ratio > 0 && finite(figure.baseline));
  return ratioEverywhere ? "ratio" : "value";
}

/**
 * A figure of this build against the same figure of the other, round by round (`thisRounds[r]` and `otherRounds[r]`
 * ran one after the other; undefined where a round has no such figure). Each round with a positive number on both
 * sides gives a loss: this / other for a figure where lower is better, other / this where higher is; above 1 is
 * worse. The figure's loss is the median of its rounds' (taken on their logarithms, so that swapping the builds turns
 * each loss into its inverse exactly). It is worse when its loss exceeds 1 + tolerance, where tolerance is the larger
 * of `floor` and the rounds' noise, sqrt(largest loss / smallest loss) - 1 (half their spread, as a factor), and its
 * rounds are apart: every round of this build worse than every round of the other (with 3 rounds a side, 1 chance in
 * 20 when both run the same code). Better is the mirror of worse; anything else is within.
 */
export function compareFigure({ name, group, thisRounds, otherRounds, floor = DEFAULT_FLOOR }) {
  const sample = thisRounds.find(Boolean) ?? otherRounds.find(Boolean);
  const measure = measureOf([...thisRounds, ...otherRounds]);
  const numbers = (rounds) => rounds.map((figure) => (figure && finite(figure[measure]) ? figure[measure] : null));
  const mine = numbers(thisRounds);
  const theirs = numbers(otherRounds);
  const mineKnown = mine.filter((x) => x !== null);
  const theirsKnown = theirs.filter((x) => x !== null);
  const better = directionOf(sample ?? {});
  const base = {
    name,
    group,
    compared: measure,
    unit: sample?.unit ?? null,
    better,
    this: mineKnown.length > 0 ? middle(mineKnown) : null,
    other: theirsKnown.length > 0 ? middle(theirsKnown) : null,
    this_rounds: mine,
    other_rounds: theirs,
  };
  const verdict = (kind, extra = {}) => ({
    ...base,
    ratio: null,
    worse_by: null,
    tolerance: null,
    pairs: 0,
    verdict: kind,
    no_worse: kind !== "worse" && kind !== "missing",
    ...extra,
  });
  if (!thisRounds.some(Boolean)) return verdict("missing", { reason: "this build printed no such figure" });
  if (!otherRounds.some(Boolean)) return verdict("unjudged", { reason: "the other build printed no such figure" });
  if (sample?.tie === true) return verdict("unjudged", { reason: "a tie: its ratio is a coin toss in either build" });
  if (mineKnown.length === 0 && theirsKnown.length > 0) {
    return verdict("missing", { reason: `this build gave no ${measure} where the other did` });
  }
  if (better === null) return verdict("unjudged", { reason: "no direction: neither its unit nor its goal says" });
  const logLosses = [];
  for (let r = 0; r < Math.min(mine.length, theirs.length); r++) {
    const a = mine[r];
    const b = theirs[r];
    if (a === null || b === null || a <= 0 || b <= 0) continue;
    const log = Math.log(a) - Math.log(b);
    logLosses.push(better === "lower" ? log : -log);
  }
  if (logLosses.length === 0) {
    return verdict("unjudged", { reason: `no round with a positive ${measure} on both sides` });
  }
  const loss = middle(logLosses);
  const noise = (Math.max(...logLosses) - Math.min(...logLosses)) / 2;
  const tolerance = Math.max(Math.log1p(floor), noise);
  // Apart: the other's worst round beats this build's best (worse), or this build's worst beats their best (better).
  const beats = (x, y) => (better === "lower" ? x < y : x > y);
  const best = (xs) => (better === "lower" ? Math.min(...xs) : Math.max(...xs));
  const worst = (xs) => (better === "lower" ? Math.max(...xs) : Math.min(...xs));
  const mineKept = mineKnown.filter((x) => x > 0);
  const theirsKept = theirsKnown.filter((x) => x > 0);
  const worseApart = beats(worst(theirsKept), best(mineKept));
  const betterApart = beats(worst(mineKept), best(theirsKept));
  const judged = loss > tolerance && worseApart ? "worse" : -loss > tolerance && betterApart ? "better" : "within";
  return {
    ...verdict(judged),
    ratio: Math.exp(better === "lower" ? loss : -loss),
    worse_by: Math.expm1(loss) + 0, // + 0: no -0 when the builds are equal
    tolerance: Math.expm1(tolerance),
    rounds_apart: worseApart || betterApart,
    pairs: logLosses.length,
  };
}

/** A figure's key within one round: its name, and `#2`, `#3`… when a group prints the same name again. */
function keyed(figures) {
  const seen = new Map();
  const byKey = new Map();
  for (const figure of figures) {
    const n = (seen.get(figure.name) ?? 0) + 1;
    seen.set(figure.name, n);
    byKey.set(n === 1 ? figure.name : `${figure.name}#${n}`, figure);
  }
  return byKey;
}

/** A failed group's line (`"error"` set) is a failure of the round, not a figure. */
const isFailure = (figure) => typeof figure.error === "string";

/**
 * One group's comparison from its rounds: `thisRuns[r]` and `otherRuns[r]` are the lines each build printed in round
 * r, or `{ failed: "why" }` for a run that printed nothing it could read. Figures pair by name, in the order this
 * build printed them (then the other's own). A round in which this build failed makes one `failed` line, which is
 * worse; a round in which only the other failed leaves that round out of the pairs.
 */
export function compareGroup(group, thisRuns, otherRuns, { floor = DEFAULT_FLOOR } = {}) {
  const lines = (run) => (Array.isArray(run) ? run : []);
  const rounds = (runs) => runs.map((run) => keyed(lines(run).filter((figure) => !isFailure(figure))));
  const mine = rounds(thisRuns);
  const theirs = rounds(otherRuns);
  const names = [];
  for (const byKey of [...mine, ...theirs]) for (const key of byKey.keys()) if (!names.includes(key)) names.push(key);
  const results = names.map((name) =>
    compareFigure({
      name,
      group,
      thisRounds: mine.map((byKey) => byKey.get(name)),
      otherRounds: theirs.map((byKey) => byKey.get(name)),
      floor,
    }),
  );
  const failures = (runs) =>
    runs.flatMap((run, r) => {
      const why = Array.isArray(run)
        ? run.filter(isFailure).map((figure) => figure.error)
        : [run?.failed ?? "no output"];
      return why.map((error) => `round ${r + 1}: ${error}`);
    });
  const failed = (runs, verdict, whose) => {
    const why = failures(runs);
    if (why.length === 0) return [];
    const reason = `${whose} run of the group failed (${why.join("; ")})`;
    return [{ name: group, group, compared: null, verdict, no_worse: verdict !== "failed", reason }];
  };
  return [
    ...results,
    ...failed(thisRuns, "failed", "this build's"),
    ...failed(otherRuns, "unjudged", "the other build's"),
  ];
}

/** The figures of a run's stdout: one JSON object a line; anything else is left out and counted. */
export function parseLines(text) {
  const figures = [];
  let unreadable = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    try {
      const figure = JSON.parse(line);
      if (figure && typeof figure === "object" && typeof figure.name === "string") figures.push(figure);
      else unreadable += 1;
    } catch {
      unreadable += 1;
    }
  }
  return { figures, unreadable };
}

/** Whether this build goes first in round r (0-based): this and other, then other and this, and so on. */
export const thisFirst = (round) => round % 2 === 0;
