// Example sandbox-agent-runner adapter.
// Usage: node .aiwg/ops/adapters/sandbox-agent-runner/runner.mjs --request <path>
// Mode comes from AIWG_A2A_ADAPTER_MODE ("plan" or "assess").
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

function fail(message, code = 2) {
  process.stderr.write(`runner: ${message}\n`);
  process.exit(code);
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

// Reads one line from stdin; resolves null on EOF before a newline.
function readLine() {
  return new Promise((resolveLine) => {
    let buf = "";
    const done = (value) => {
      process.stdin.off("data", onData);
      process.stdin.off("end", onEnd);
      process.stdin.off("error", onEnd);
      process.stdin.pause();
      process.stdin.unref?.();
      resolveLine(value);
    };
    const onData = (chunk) => {
      buf += chunk;
      const nl = buf.indexOf("\n");
      if (nl !== -1) done(buf.slice(0, nl).replace(/\r$/, ""));
    };
    const onEnd = () => done(buf.length > 0 ? buf.replace(/\r$/, "") : null);
    process.stdin.setEncoding("utf8");
    process.stdin.on("data", onData);
    process.stdin.on("end", onEnd);
    process.stdin.on("error", onEnd);
  });
}

const args = process.argv.slice(2);
const i = args.indexOf("--request");
if (i === -1 || !args[i + 1]) fail("missing --request <path>");
const requestPath = args[i + 1];

const mode = process.env.AIWG_A2A_ADAPTER_MODE;
if (mode !== "plan" && mode !== "assess") {
  fail(`AIWG_A2A_ADAPTER_MODE must be "plan" or "assess", got ${JSON.stringify(mode ?? null)}`);
}

let request;
try {
  request = JSON.parse(readFileSync(resolve(process.cwd(), requestPath), "utf8"));
} catch (err) {
  fail(`cannot read request ${requestPath}: ${err.message}`);
}
if (!request || typeof request !== "object" || typeof request.title !== "string" || !Array.isArray(request.steps)) {
  fail(`request ${requestPath} must be { "title": string, "steps": [string...], "confirm"?: string }`);
}

if (process.env.AIWG_A2A_TASK_ID) {
  process.stderr.write(`task ${process.env.AIWG_A2A_TASK_ID}\n`);
}

const steps = request.steps.map(String);

if (mode === "plan") {
  process.stdout.write(`Plan for ${request.title}:\n`);
  steps.forEach((step, n) => {
    process.stdout.write(`  ${n + 1}. ${step}\n`);
  });
  process.stdout.write(`plan: ${steps.length} steps, nothing changed\n`);
  process.exit(0);
}

process.stdout.write(`Assessing ${request.title}:\n`);
for (const step of steps) {
  await sleep(50);
  process.stdout.write(`check  ${step} ... ok\n`);
}

if (typeof request.confirm === "string" && request.confirm.length > 0) {
  process.stdout.write(`${request.confirm} [y/N] `);
  const answer = await readLine();
  if (answer !== null && /^(y|yes)$/i.test(answer.trim())) {
    process.stdout.write("confirmed\n");
    process.exit(0);
  }
  process.stderr.write("not confirmed\n");
  process.exit(5);
}
process.exit(0);
