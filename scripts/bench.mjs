#!/usr/bin/env node
// `npm run bench`: measures the built CLI against baselines taken in the same run and prints one JSON object
// per line and figure: { name, value, unit, baseline, ratio, goal, meets, ...details }. Progress goes to stderr.
// Options: --quick (fewer repetitions, smaller sizes), --only a,b (run some groups: dispatch, throughput, shapes,
// prompt, startup, screen, memory, concurrency, containment, http-dispatch, http-rps, grpc-rps, http-sse, http-streams,
// push, idempotency, console, kept-tasks, scale),
// --runs N (the groups judged over full runs, shapes, throughput, http-sse, http-rps and grpc-rps, run N times; 3 for
// the judgement).
// --against DIR [--rounds N] [--tolerance P]: each group run by this checkout's bench and by DIR's (another checkout,
// built) in turn, N rounds (3), and this build's figures judged against DIR's: one JSON line per figure, exit 1 when
// one is worse by more than P % (5) and its rounds' noise, with its rounds apart (scripts/bench/against.mjs,
// docs/benchmarks.md).
import { existsSync, readFileSync } from "node:fs";
import { against, unusableCheckout } from "./bench/against.mjs";
import { concurrency } from "./bench/concurrency.mjs";
import { consoleFigures } from "./bench/console.mjs";
import { containmentEnd } from "./bench/containment.mjs";
import { dispatchOverhead } from "./bench/dispatch.mjs";
import { grpcGetTaskRps } from "./bench/grpc-rps.mjs";
import { httpDispatchOverhead } from "./bench/http-dispatch.mjs";
import { httpGetTaskRps } from "./bench/http-rps.mjs";
import { httpSseThroughput } from "./bench/http-sse.mjs";
import { httpIdleStreams } from "./bench/http-streams.mjs";
import { idempotency } from "./bench/idempotency.mjs";
import { judgeAll, runsToMeet } from "./bench/judge.mjs";
import { BIN, killAll, log, noFigure, round } from "./bench/lib.mjs";
import { memory } from "./bench/memory.mjs";
import { promptLatency } from "./bench/prompt.mjs";
import { push } from "./bench/push.mjs";
import { keptTasks, scale } from "./bench/scale.mjs";
import { screen } from "./bench/screen.mjs";
import { streamShapes } from "./bench/shapes.mjs";
import { startup } from "./bench/startup.mjs";
import { throughput } from "./bench/throughput.mjs";

const GROUPS = {
  dispatch: dispatchOverhead,
  throughput,
  shapes: streamShapes,
  prompt: promptLatency,
  startup,
  screen,
  memory,
  concurrency,
  containment: containmentEnd,
  "http-dispatch": httpDispatchOverhead,
  "http-rps": httpGetTaskRps,
  "grpc-rps": grpcGetTaskRps,
  "http-sse": httpSseThroughput,
  "http-streams": httpIdleStreams,
  push,
  idempotency,
  console: consoleFigures,
  "kept-tasks": keptTasks,
  scale,
};

/**
 * The groups whose ratios swing from run to run on a busy machine: each runs --runs full times and a figure meets
 * in two of three (docs/benchmarks.md, "How figures are judged").
 */
const JUDGED_OVER_RUNS = new Set(["shapes", "throughput", "http-sse", "http-rps", "grpc-rps"]);

const argv = process.argv.slice(2);
const usage = (text) => {
  process.stderr.write(`bench: ${text}\n`);
  process.exit(2);
};
/** The value after `flag`, or `fallback` when the flag is not given. */
const option = (flag, fallback) => {
  const at = argv.indexOf(flag);
  if (at < 0) return fallback;
  const value = argv[at + 1];
  if (value === undefined || value.startsWith("--")) usage(`${flag} needs a value`);
  return value;
};
const quick = argv.includes("--quick");
const fullRuns = Number(option("--runs", "1"));
if (!Number.isInteger(fullRuns) || fullRuns < 1)
  usage("--runs takes a whole number of full runs, 1 or more (3 for the judgement)");
const otherCheckout = option("--against", undefined);
const rounds = Number(option("--rounds", "3"));
if (!Number.isInteger(rounds) || rounds < 1) usage("--rounds takes a whole number of rounds a side, 1 or more (3)");
const tolerance = Number(option("--tolerance", "5"));
if (!Number.isFinite(tolerance) || tolerance < 0) usage("--tolerance takes a percentage, 0 or more (5)");
const onlyAt = argv.indexOf("--only");
const only = onlyAt >= 0 ? (argv[onlyAt + 1] ?? "").split(",").filter(Boolean) : Object.keys(GROUPS);
for (const name of only) {
  if (!(name in GROUPS)) {
    process.stderr.write(`bench: unknown group "${name}" (groups: ${Object.keys(GROUPS).join(", ")})\n`);
    process.exit(2);
  }
}
if (!existsSync(new URL("../dist/cli.js", import.meta.url))) usage(`${BIN} needs dist/; run \`npm run build\` first`);
if (otherCheckout !== undefined) {
  const why = unusableCheckout(otherCheckout);
  if (why) usage(`--against: ${why}`);
}

const roundDetail = (x) => (typeof x === "number" && !Number.isInteger(x) ? round(x) : x);
const print = ({ name, value, unit, baseline, ratio, goal, meets, ...details }) => {
  const extra = Object.fromEntries(
    Object.entries(details).map(([key, x]) => [key, Array.isArray(x) ? x.map(roundDetail) : roundDetail(x)]),
  );
  const line = { name, value: round(value), unit, baseline: round(baseline), ratio: round(ratio), goal, meets };
  // Figures move with the Node line (the ratio against the SDK's gRPC server among them), so each says which ran it.
  process.stdout.write(`${JSON.stringify({ ...line, ...extra, node: process.version })}\n`);
};

let aborted = false;
const abort = async (signal) => {
  if (aborted) return;
  aborted = true;
  log(`${signal}: stopping every child`);
  await killAll(3000);
  process.exit(130);
};
process.on("SIGINT", () => abort("SIGINT"));
process.on("SIGTERM", () => abort("SIGTERM"));

/** The 1-minute load average: other work on the machine skews every figure, so the log says how much there was. */
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

/** A group's figures: from one run, or judged over `fullRuns` full runs for the groups judged that way. */
async function figuresOf(name) {
  if (!JUDGED_OVER_RUNS.has(name)) return GROUPS[name]({ quick });
  if (fullRuns < 3) log(`${name}: ${fullRuns} full run(s), each must meet; two of three needs --runs 3`);
  const runs = [];
  for (let run = 1; run <= fullRuns && !aborted; run++) {
    if (fullRuns > 1) log(`${name} full run ${run}/${fullRuns} (load average ${load()})`);
    runs.push(await GROUPS[name]({ quick }));
  }
  if (fullRuns > 1) log(`${name}: a figure meets when ${runsToMeet(fullRuns)} of ${fullRuns} runs do`);
  return judgeAll(runs);
}

/** Every group of `only` on this build, its figures printed as they come; resolves with the exit code. */
async function runHere() {
  let failures = 0;
  for (const name of only) {
    if (aborted) break;
    const t0 = Date.now();
    log(`${name}${quick ? " (quick)" : ""}... (load average ${load()})`);
    try {
      for (const figure of await figuresOf(name)) print(figure);
    } catch (error) {
      if (aborted) break;
      failures += 1;
      log(`${name} failed: ${error?.stack ?? error}`);
      print(noFigure(name, { meets: false, error: String(error?.message ?? error) }));
      await killAll(3000);
    }
    log(`${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s (load average ${load()})`);
  }
  if (failures > 0) log(`${failures} group(s) failed`);
  return failures > 0 ? 1 : 0;
}

const started = Date.now();
const code =
  otherCheckout === undefined
    ? await runHere()
    : await against({
        other: otherCheckout,
        groups: only,
        rounds,
        floor: tolerance / 100,
        childArgs: [...(quick ? ["--quick"] : []), ...(fullRuns > 1 ? ["--runs", String(fullRuns)] : [])],
        aborted: () => aborted,
      });
log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exitCode = aborted ? 130 : code;
