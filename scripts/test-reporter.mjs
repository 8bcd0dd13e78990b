// A quiet reporter for `npm test`: one line per test file, every failure in full, every skip with its reason, and
// a closing line of counts. Node's own reporters print every test; this keeps a green run short.
import { relative } from "node:path";
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

export default async function* quiet(source) {
  const files = new Map();
  const failures = [];
  const skips = [];
  const output = new Map();
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const countsOf = (file) => {
    if (!files.has(file)) files.set(file, { passed: 0, failed: 0, skipped: 0, ms: 0 });
    return files.get(file);
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
    if (type !== "test:pass" && type !== "test:fail") continue;
    const counts = countsOf(file);
    if (data.nesting === 0) counts.ms += data.details?.duration_ms ?? 0;
    if (data.details?.type === "suite") {
      // A suite fails with its tests (counted there), or on its own in a hook: then it is a failure of its own.
      if (type === "test:fail" && data.details?.error?.failureType !== "subtestsFailed") {
        totals.failed += 1;
        counts.failed += 1;
        failures.push({ file, text: `${file} › ${data.name}\n${describeError(data.details?.error)}` });
      }
      continue;
    }
    if (data.skip !== undefined) {
      totals.skipped += 1;
      counts.skipped += 1;
      skips.push(`${file} › ${data.name}: ${typeof data.skip === "string" ? data.skip : "skipped"}`);
    } else if (type === "test:pass") {
      totals.passed += 1;
      counts.passed += 1;
    } else {
      totals.failed += 1;
      counts.failed += 1;
      failures.push({ file, text: `${file} › ${data.name}\n${describeError(data.details?.error)}` });
    }
  }
  for (const [file, counts] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    const parts = [`${counts.passed} passed`];
    if (counts.failed) parts.push(`${counts.failed} failed`);
    if (counts.skipped) parts.push(`${counts.skipped} skipped`);
    yield `${counts.failed ? "✖" : "✔"} ${file} (${parts.join(", ")}, ${(counts.ms / 1000).toFixed(1)} s)\n`;
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
