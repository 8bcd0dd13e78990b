#!/usr/bin/env node
// The package as users get it: `npm pack`, installed globally into a temporary prefix, then the installed binary runs
// --version, validate and the bundled example. Run by .ci/run; nothing of the checkout is on the binary's path.
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
  // The example files, copied out of the checkout, so the installed binary is tried on its own.
  const examples = join(work, "examples");
  cpSync(join(root, "examples"), examples, { recursive: true });
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
  console.log(`package ok: ${packed.filename} (${packed.files.length} files) installs and runs ${version}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
