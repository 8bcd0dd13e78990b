// A quiet reporter for `npm test`: one line per test file, printed as soon as that file ends, every failure in full
// and every skip with its reason at the end, and a closing line of counts. Node's own reporters print every test;
// this keeps a green run short while still showing that it moves.
import { isAbsolute, relative, resolve } from "node:path";
import { inspect } from "node:util";

const root = process.cwd();

function describeError(error) {
  const cause = error?.cause ?? error;
  if (cause && typeof cause === "object" && "message" in cause) {
    const stack =
      typeof cause.stack === "string"
        ? cause.stack
            .split("\n")
            .filter((l) => /^\s+at /.test(l))
            .slice(0, 6)
            .join("\n")
        : "";
    return [String(cause.message), stack].filter(Boolean).join("\n");
  }
  return inspect(cause, { depth: 4 });
}

/**
 * The runner's own test for a whole file: at nesting 0 and named after the file (its absolute path on Node 20,
 * the path it was given on Node 22 and later).
 */
const isFileEvent = (data) =>
  data?.nesting === 0 &&
  typeof data.file === "string" &&
  typeof data.name === "string" &&
  (isAbsolute(data.name) ? data.name : resolve(root, data.name)) === data.file;

function fileLine(file, counts) {
  const parts = [`${counts.passed} passed`];
  if (counts.failed) parts.push(`${counts.failed} failed`);
  if (counts.skipped) parts.push(`${counts.skipped} skipped`);
  return `${counts.failed ? "✖" : "✔"} ${file} (${parts.join(", ")}, ${(counts.ms / 1000).toFixed(1)} s)\n`;
}

export default async function* quiet(source) {
  const files = new Map();
  const failures = [];
  const skips = [];
  const output = new Map();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const countsOf = (file) => {
    if (!files.has(file)) files.set(file, { passed: 0, failed: 0, skipped: 0, seen: 0, ms: 0, end: undefined });
    return files.get(file);
  };
  const fail = (file, name, error) => {
    totals.failed += 1;
    countsOf(file).failed += 1;
    failures.push({ file, text: `${file} › ${name}\n${describeError(error)}` });
  };
  // Files that have ended but whose tests were not reported yet: Node 20 reports a file's tests in one batch, in
  // the order the files were given, so a file that ends early hears of its tests later.
  const waiting = new Set();
  const finish = (file) => {
    waiting.delete(file);
    const counts = countsOf(file);
    // A file that failed without a failing test (it crashed, or exited non-zero) is a failure of its own.
    if (counts.end?.passed === false && counts.failed === 0) fail(file, "the file itself", counts.end.error);
    return fileLine(file, counts);
  };
  for await (const { type, data } of source) {
    const file = data?.file ? relative(root, data.file) : "(no file)";
    if (type === "test:stdout" || type === "test:stderr") {
      // Shown only for a file that fails.
      const lines = output.get(file) ?? [];
      if (lines.length < 200) lines.push(data.message);
      output.set(file, lines);
      continue;
    }
    if (isFileEvent(data)) {
      // The file's process has ended: its line now, not at the end of the run, once its tests are in.
      if (type !== "test:complete") continue;
      const counts = countsOf(file);
      counts.ms = data.details?.duration_ms ?? 0;
      counts.end = { passed: data.details?.passed !== false, error: data.details?.error };
      if (counts.seen > 0) yield finish(file);
      else waiting.add(file);
      continue;
    }
    // Counted from test:complete, which comes as each test ends; test:pass and test:fail come in the order the
    // tests were declared across files, so they can arrive after their file has ended.
    if (type !== "test:complete") continue;
    for (const other of waiting) if (other !== file && countsOf(other).seen > 0) yield finish(other);
    const counts = countsOf(file);
    counts.seen += 1;
    const passed = data.details?.passed !== false;
    if (data.details?.type === "suite") {
      // A suite fails with its tests (counted there), or on its own in a hook: then it is a failure of its own.
      if (!passed && data.details?.error?.failureType !== "subtestsFailed") fail(file, data.name, data.details?.error);
      continue;
    }
    if (data.skip !== undefined) {
      totals.skipped += 1;
      counts.skipped += 1;
      skips.push(`${file} › ${data.name}: ${typeof data.skip === "string" ? data.skip : "skipped"}`);
    } else if (passed) {
      totals.passed += 1;
      counts.passed += 1;
    } else fail(file, data.name, data.details?.error);
  }
  // Files still waiting, and any whose end the runner did not report.
  for (const [file, counts] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (file !== "(no file)" && (waiting.has(file) || counts.end === undefined)) yield finish(file);
  }
  for (const skip of skips) yield `- skipped: ${skip}\n`;
  for (const failure of failures) {
    yield `\n✖ ${failure.text}\n`;
    const lines = output.get(failure.file);
    if (lines?.length) yield `  output of ${failure.file}:\n${lines.map((l) => `  | ${l}`).join("")}`;
    output.delete(failure.file);
  }
  yield `\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`;
}
