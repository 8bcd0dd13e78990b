// `conformance init DIR`: the workspace the scenarios run on. The runner sits where adapter-command/v1's only
// command shape names it and does what the request file says, step by step; the request files are the ones the
// scenarios name (docs/reference.md, "conformance").
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

export const RUNNER_PATH = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
/** The request folder of the runs (the seed's second allowed folder). */
export const RUNS = ".aiwg/ops/runs/conformance";
/** A request in the adapter's own folder (the seed's first allowed folder). */
export const IN_ADAPTER_FOLDER = ".aiwg/ops/adapters/sandbox-agent-runner/conformance/exit-0.json";

export type Step =
  | { out: string }
  | { err: string }
  | { env: string[] }
  | { sleep: number }
  | { ask: string; repeat?: number; linger?: number }
  | { exit: number };

export const ENV_NAMES = ["AIWG_A2A_ADAPTER", "AIWG_A2A_ADAPTER_MODE", "AIWG_A2A_TASK_ID", "AIWG_A2A_MESSAGE"];

/** The request files, by name; each scenario names one (`requestPath(name)`). */
export const REQUESTS = {
  "exit-0": [{ out: "conformance: exit 0" }],
  "exit-3": [{ err: "conformance: exit 3" }, { exit: 3 }],
  env: [{ env: ENV_NAMES }],
  streams: [{ out: "conformance-stdout-marker" }, { err: "conformance-stderr-marker" }],
  sleep: [{ sleep: 120_000 }],
  "sleep-short": [{ sleep: 1500 }, { out: "conformance: slept" }],
  ask: [{ ask: "Proceed? [y/N] " }],
  "ask-linger": [{ ask: "Proceed? [y/N] ", linger: 300 }],
  "ask-twice": [{ ask: "First? [y/N] " }, { ask: "Second? [y/N] " }],
  "ask-loop": [{ ask: "Again? [y/N] ", repeat: 40 }],
} satisfies Record<string, Step[]>;

export type RequestName = keyof typeof REQUESTS;

export const requestPath = (name: RequestName) => `${RUNS}/${name}.json`;

/**
 * The runner: reads `--request FILE` (relative to its working directory) and runs its steps. `ask` writes the
 * prompt without a newline, reads one line from stdin and prints `received=` and, as JSON, the bytes it got up
 * to that newline plus what follows within `linger` ms (so an extra newline shows); stdin at its end: `null`.
 */
export const RUNNER = `#!/usr/bin/env node
// Written by \`adapter-command conformance init\`: does what the request file says (docs/reference.md, "conformance").
import { readFileSync } from "node:fs";

const at = process.argv.indexOf("--request");
const steps = JSON.parse(readFileSync(process.argv[at + 1], "utf8")).steps;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
let buffered = "";
let ended = false;
const waiting = [];
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text) => {
  buffered += text;
  for (const wake of waiting.splice(0)) wake();
});
process.stdin.on("end", () => {
  ended = true;
  for (const wake of waiting.splice(0)) wake();
});
process.stdin.on("error", () => {
  ended = true;
});
const more = () => new Promise((resolve) => waiting.push(resolve));
async function line(linger) {
  while (!buffered.includes("\\n") && !ended) await more();
  if (!buffered.includes("\\n")) return null;
  if (linger > 0) await sleep(linger);
  const cut = linger > 0 ? buffered.length : buffered.indexOf("\\n") + 1;
  const got = buffered.slice(0, cut);
  buffered = buffered.slice(cut);
  return got;
}
const write = (stream, text) => new Promise((resolve) => stream.write(text, resolve));
for (const step of steps) {
  if ("out" in step) await write(process.stdout, \`\${step.out}\\n\`);
  else if ("err" in step) await write(process.stderr, \`\${step.err}\\n\`);
  else if ("env" in step)
    for (const name of step.env) await write(process.stdout, \`\${name}=\${JSON.stringify(process.env[name] ?? null)}\\n\`);
  else if ("sleep" in step) await sleep(step.sleep);
  else if ("ask" in step)
    for (let round = 0; round < (step.repeat ?? 1); round++) {
      await write(process.stdout, step.ask);
      const got = await line(step.linger ?? 0);
      await write(process.stdout, \`\\nreceived=\${JSON.stringify(got)}\\n\`);
      if (got === null) break;
    }
  else if ("exit" in step) process.exit(step.exit);
}
process.exit(0);
`;

/** Writes the runner and every request file under `dir`; returns the paths written, relative to it. */
export async function writeWorkspace(dir: string): Promise<string[]> {
  const files: [string, string][] = [[RUNNER_PATH, RUNNER]];
  for (const [name, steps] of Object.entries(REQUESTS))
    files.push([requestPath(name as RequestName), `${JSON.stringify({ steps }, null, 2)}\n`]);
  files.push([IN_ADAPTER_FOLDER, `${JSON.stringify({ steps: REQUESTS["exit-0"] }, null, 2)}\n`]);
  for (const [path, text] of files) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return files.map(([path]) => path);
}
