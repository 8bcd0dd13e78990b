#!/usr/bin/env node
// The package as users get it: `npm pack`, installed globally into a temporary prefix, then the installed binary runs
// --version, validate and the example the package ships, and serves from a state dir (which loads SQLite's native
// module, so a build for another Node version fails here). Run by .ci/run; nothing of the checkout is on its path.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "adapter-command-package-"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = (command, args, options = {}) => execFileSync(command, args, { encoding: "utf8", ...options });

try {
  const [packed] = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], { cwd: root }));
  const tarball = join(work, packed.filename);
  const prefix = join(work, "prefix");
  run(npm, ["install", "--global", "--prefix", prefix, "--no-audit", "--no-fund", tarball], { stdio: "pipe" });
  const bin = join(prefix, "bin", "adapter-command");
  // The examples the README sends installed users to, as the package holds them.
  const examples = join(prefix, "lib", "node_modules", "adapter-command", "examples");
  for (const file of ["envelopes/plan.json", "workspace/.aiwg/ops/adapters/sandbox-agent-runner/runner.mjs"]) {
    if (!existsSync(join(examples, file))) throw new Error(`the package lacks examples/${file}`);
  }
  const version = run(bin, ["--version"], { cwd: work }).trim();
  const expected = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).version;
  if (version !== expected) throw new Error(`--version printed ${version}, expected ${expected}`);
  run(bin, ["validate", join(examples, "envelopes/plan.json")], { cwd: work });
  const output = run(
    bin,
    ["run", "--no-tui", "--workspace", join(examples, "workspace"), join(examples, "envelopes/plan.json")],
    {
      cwd: work,
    },
  );
  if (!output.includes("Plan")) throw new Error(`run printed no plan:\n${output}`);
  // A state dir loads better-sqlite3's native module: one request, then end of input ends the bridge (exit 0).
  const served = spawnSync(bin, ["serve", "--stdio", "--state-dir", join(work, "state")], {
    cwd: work,
    encoding: "utf8",
    input: `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: {} })}\n`,
    timeout: 30_000,
  });
  if (served.status !== 0 || !served.stdout.includes('"tasks":[]')) {
    throw new Error(`serve --stdio --state-dir failed (exit ${served.status}):\n${served.stdout}${served.stderr}`);
  }
  console.log(`package ok: ${packed.filename} (${packed.files.length} files) installs and runs ${version}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
