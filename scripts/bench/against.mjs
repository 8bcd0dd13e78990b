// `node scripts/bench.mjs --against DIR`: each group run by this checkout's bench and by DIR's (another checkout,
// built), taking turns round by round, and this build's figures judged against DIR's (scripts/bench/compare.mjs;
// docs/benchmarks.md, "How figures are judged"). Each side is its own `node <checkout>/scripts/bench.mjs --only G`,
// so each measures its own bin/ and dist/ with its own scripts and baselines.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { compareGroup, parseLines, thisFirst } from "./compare.mjs";
import { LineSplitter, ROOT, round, track } from "./lib.mjs";

/** What a run may print on stdout: a group's figures are a few KiB; more is a fault, not figures. */
const STDOUT_LIMIT = 4 * 1024 * 1024;

/** Why `dir` cannot be compared against, or undefined when it can. */
export function unusableCheckout(dir) {
  for (const needed of ["scripts/bench.mjs", "bin/adapter-command.js", "dist/cli.js"]) {
    if (!existsSync(resolve(dir, needed))) {
      return `${dir} has no ${needed}${needed.startsWith("dist") ? " (build it there with `npm run build`)" : ""}`;
    }
  }
  return undefined;
}

const load = () => readFileSync("/proc/loadavg", "utf8").split(" ")[0];

/**
 * One run of `group` by the bench of checkout `root`: resolves with its figures, or `{ failed }` when it printed none
 * it could read. Its progress goes to stderr, each line marked with `label`.
 */
function runGroup(root, group, args, label, note) {
  const child = track(
    spawn(process.execPath, [resolve(root, "scripts/bench.mjs"), "--only", group, ...args], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let overflow = false;
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    if (stdout.length + chunk.length > STDOUT_LIMIT) overflow = true;
    else stdout += chunk;
  });
  let tail = "";
  const lines = new LineSplitter((line) => {
    const text = line.toString("utf8");
    tail = `${tail}\n${text}`.slice(-600);
    note(`[${label}] ${text}`);
  });
  child.stderr.on("data", (chunk) => lines.push(chunk));
  return new Promise((done) => {
    child.once("error", (error) => done({ failed: `could not start: ${error.message}` }));
    child.once("close", (code, signal) => {
      if (overflow) return done({ failed: `printed more than ${STDOUT_LIMIT} bytes` });
      const { figures, unreadable } = parseLines(stdout);
      if (unreadable > 0) note(`bench: ${label}: ${unreadable} line(s) of its output were not figures`);
      if (figures.length > 0) return done(figures);
      done({ failed: `no figures; exit ${signal ?? code}; its log ends: ${tail.trim().slice(-300)}` });
    });
  });
}

const cell = (x) => (x === null || x === undefined ? "–" : typeof x === "number" ? String(round(x)) : String(x));
const percent = (x) => (typeof x === "number" ? `${(x * 100).toFixed(1)} %` : "–");

/** The comparison as a table, for the log. */
function table(results) {
  const rows = [
    ["figure", "compared", "this", "other", "this/other", "better", "worse by", "tolerance", "verdict"],
    ...results.map((r) => [
      r.name,
      r.compared ?? "–",
      cell(r.this),
      cell(r.other),
      cell(r.ratio),
      r.better ?? "–",
      percent(r.worse_by),
      percent(r.tolerance),
      r.reason ? `${r.verdict} (${r.reason})` : r.verdict,
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  widths[widths.length - 1] = 0;
  return rows
    .map((row) =>
      row
        .map((text, i) => text.padEnd(widths[i]))
        .join("  ")
        .trimEnd(),
    )
    .join("\n");
}

const toStdout = (line) => process.stdout.write(`${line}\n`);
const toStderr = (line) => process.stderr.write(`${line}\n`);

/**
 * Runs every group of `groups` `rounds` times on each side, this checkout (`self`) and `other` taking turns (which
 * goes first alternates by round), prints one JSON line per compared figure (`print`, stdout) and the children's logs
 * and a table (`note`, stderr), and resolves with the exit code: 0 when no figure is worse, 1 otherwise.
 */
export async function against({
  other,
  groups,
  rounds,
  floor,
  childArgs = [],
  aborted = () => false,
  self = ROOT,
  print = toStdout,
  note = toStderr,
}) {
  const otherRoot = resolve(other);
  const log = (line) => note(`bench: ${line}`);
  log(`against ${otherRoot}: ${rounds} round(s) a group, tolerance at least ${percent(floor)}`);
  const all = [];
  for (const group of groups) {
    const mine = [];
    const theirs = [];
    for (let r = 0; r < rounds && !aborted(); r++) {
      const sides = [
        ["this", self, mine],
        ["other", otherRoot, theirs],
      ];
      if (!thisFirst(r)) sides.reverse();
      for (const [side, root, into] of sides) {
        if (aborted()) break;
        log(`${group} round ${r + 1}/${rounds}: ${side} (load average ${load()})`);
        into.push(await runGroup(root, group, childArgs, `${side} ${group} ${r + 1}`, note));
      }
    }
    if (aborted()) break;
    for (const result of compareGroup(group, mine, theirs, { floor })) {
      all.push(result);
      print(JSON.stringify(result, (_, x) => (typeof x === "number" && !Number.isInteger(x) ? round(x) : x)));
    }
  }
  const worse = all.filter((result) => !result.no_worse);
  log(`this build (${self}) against ${otherRoot}:\n${table(all)}`);
  log(
    worse.length === 0
      ? `no figure is worse (${all.length} compared)`
      : `${worse.length} of ${all.length} worse: ${worse.map((r) => r.name).join(", ")}`,
  );
  return worse.length === 0 ? 0 : 1;
}
