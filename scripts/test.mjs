#!/usr/bin/env node
// The test files are listed here, not globbed by `node --test`: a folder or a file may be named on the command line,
// and test/**/fixtures is left out. They go to `node --test` through tsx.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const only = process.argv.slice(2);
const suites = only.length > 0 ? only : ["test/unit", "test/e2e"];

function list(dir) {
  if (statSync(dir).isFile()) return [dir];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : list(path);
    return /\.test\.tsx?$/.test(entry.name) ? [path] : [];
  });
}

const files = suites
  .flatMap((suite) => list(join(root, suite)))
  .map((file) => relative(root, file))
  .sort();
if (files.length === 0) {
  console.error(`no test files under ${suites.join(", ")}`);
  process.exit(1);
}
// One line per file and failures in full (scripts/test-reporter.mjs); TEST_REPORTER=spec shows every test.
const reporter = process.env.TEST_REPORTER ?? join(root, "scripts/test-reporter.mjs");
// Files at once: 3 by default, on CI's 2 cores: most end-to-end files spend their time waiting on the processes they
// drive (a runner's output, a deadline of the tool, a browser), so a third file fills the cores those waits leave
// idle. TEST_CONCURRENCY sets another number.
const concurrency = Number(process.env.TEST_CONCURRENCY ?? 3);
const args = ["--import", "tsx", "--test", `--test-concurrency=${concurrency}`, `--test-reporter=${reporter}`];
const result = spawnSync(process.execPath, [...args, ...files], {
  cwd: root,
  stdio: "inherit",
});
process.exit(result.status ?? 1);
