#!/usr/bin/env node
// The package as users get it: `npm pack`, installed globally into a temporary prefix, then the installed binary runs
// --version, validate and the example the package ships, and serves from a state dir (which loads SQLite's native
// module, so a build for another Node version fails here). Run by .ci/run; nothing of the checkout is on its path.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "adapter-command-package-"));
const npm = process.platform === "win32" ? "npm.cmd" : "npm";
const run = (command, args, options = {}) => execFileSync(command, args, { encoding: "utf8", ...options });

/** The installed binary serves the console's page and script from the package. */
async function checkConsole(bin, cwd) {
  const child = spawn(bin, ["serve", "--http", "--port", "0", "--no-auth"], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const [line] = await Promise.race([
      once(createInterface({ input: child.stdout }), "line"),
      once(child, "exit").then(() => {
        throw new Error("serve --http exited before listening");
      }),
    ]);
    const { url, console: page } = JSON.parse(line);
    if (page !== `${url}/`) throw new Error(`the start line's console is ${page}, expected ${url}/`);
    for (const path of ["/", "/assets/console.js", "/assets/console.css"]) {
      const answer = await fetch(`${url}${path}`);
      if (answer.status !== 200) throw new Error(`GET ${path} of the installed console: ${answer.status}`);
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
  }
}

try {
  const [packed] = JSON.parse(run(npm, ["pack", "--json", "--pack-destination", work], { cwd: root }));
  const tarball = join(work, packed.filename);
  // The operator console is served from the package (CONTRACT section 10): its built assets must be in it.
  const packedFiles = new Set(packed.files.map((file) => file.path));
  const assets = ["dist/web/index.html", "dist/web/console.js", "dist/web/console.css", "dist/http/console/routes.js"];
  const missing = assets.filter((file) => !packedFiles.has(file));
  if (missing.length > 0) throw new Error(`the package lacks the console's files: ${missing.join(", ")}`);
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
  await checkConsole(bin, work);
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
