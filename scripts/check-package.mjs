#!/usr/bin/env node
// The package as users get it: `npm pack`, installed globally into a temporary prefix, then the installed binary runs
// --version, validate and the bundled example. Run by .ci/run; nothing of the checkout is on the binary's path.
import { execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
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
  await checkConsole(bin, work);
  console.log(`package ok: ${packed.filename} (${packed.files.length} files) installs and runs ${version}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
