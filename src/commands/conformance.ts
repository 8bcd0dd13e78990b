// `adapter-command conformance`: checks an A2A runtime (this tool's `serve`, or the agentic-sandbox runtime)
// against the scenarios of src/conformance (docs/reference.md, "conformance"). Exit codes: 0 nothing failed, 1 a
// scenario failed, 2 usage, 4 the server (unreachable, a card that cannot be read).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { rmSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readToken } from "../client/connect.js";
import { ClientFailure } from "../client/failures.js";
import { readCard, ServerProblem } from "../conformance/card.js";
import type { Binding } from "../conformance/driver.js";
import { jsonReport } from "../conformance/report-json.js";
import { junitReport } from "../conformance/report-junit.js";
import { resultLine, summaryLine } from "../conformance/report-text.js";
import { runSuite } from "../conformance/runner.js";
import type { Result } from "../conformance/scenario.js";
import { selectScenarios } from "../conformance/scenarios.js";
import { killAll, SelfServer } from "../conformance/self.js";
import { writeWorkspace } from "../conformance/workspace.js";
import { EXIT } from "../exit-codes.js";
import type { Io } from "../io/io.js";

export interface ConformanceOptions {
  server?: string;
  self?: boolean;
  tokenFile?: string;
  binding: Binding | "all";
  only: string[];
  json?: boolean;
  junit?: string;
  restartCommand?: string;
  /** Seconds. */
  maxWait: number;
}

/** The deadline of one request. */
const REQUEST_TIMEOUT_MS = 60_000;
/** With `--self`, the state-dir set-up's TTL: short, so that AC-3 runs, and long enough that the AC-1 retries of that set-up (one after a 1.5 s command) come within it on a loaded machine. */
const SELF_TTL_SECONDS = 8;
/** Run in the state-dir set-up of `--self` only: the ones that need a store that outlives a restart or a short TTL. */
const STATE_DIR_ONLY = ["IDEM-AC-3", "IDEM-AC-4"];
/** Set on Ctrl-C of --self: what the scenarios find once the servers stop is not reported. */
let stopping = false;

export async function conformanceInit(dir: string, io: Io): Promise<number> {
  try {
    const files = await writeWorkspace(dir);
    io.stdout.write(`${files.map((file) => `wrote ${join(dir, file)}`).join("\n")}\n`);
    io.stdout.write(
      `start the runtime on ${dir} (adapter-command serve --http --require-extensions --workspace ${dir}) and run adapter-command conformance --server URL\n`,
    );
    return EXIT.ok;
  } catch (error) {
    io.stderr.write(`adapter-command conformance init: cannot write the workspace: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
}

/** `--restart-command`: runs CMD (no shell, no arguments), then waits for the card again. */
function restarter(command: string, server: string, maxWaitMs: number): () => Promise<void> {
  return async () => {
    const child = spawn(command, [], { stdio: ["ignore", "ignore", "inherit"] });
    const timer = setTimeout(() => child.kill("SIGKILL"), maxWaitMs);
    const [code] = (await once(child, "exit").finally(() => clearTimeout(timer))) as [number | null];
    if (code !== 0) throw new Error(`--restart-command ${command} exited with ${code}`);
    const until = Date.now() + maxWaitMs;
    for (;;) {
      try {
        await readCard(server, 5000);
        return;
      } catch (error) {
        if (Date.now() > until) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
}

export async function conformanceCommand(options: ConformanceOptions, io: Io): Promise<number> {
  const usage = (text: string) => {
    io.stderr.write(`adapter-command conformance: ${text}\n(run adapter-command conformance --help for usage)\n`);
    return EXIT.usage;
  };
  if (Boolean(options.server) === Boolean(options.self))
    return usage("expected exactly one of --server URL and --self");
  if (options.self && (options.tokenFile || options.restartCommand))
    return usage("--token-file and --restart-command are for --server; --self starts its own runtime");
  if (options.server !== undefined && !/^https?:\/\//.test(options.server))
    return usage(`expected an http:// or https:// URL for --server, found "${options.server}"`);
  const unknown = options.only.filter((prefix) => selectScenarios([prefix]).length === 0);
  if (unknown.length > 0) return usage(`--only ${unknown.join(", ")} matches no scenario id`);

  const started = performance.now();
  const results: Result[] = [];
  const onResult = (result: Result) => {
    if (stopping) return;
    results.push(result);
    if (!options.json) io.stdout.write(`${resultLine(result)}\n`);
  };
  const maxWaitMs = options.maxWait * 1000;
  let server = options.server ?? "";
  try {
    if (options.server !== undefined) {
      const token = await readToken(options.tokenFile);
      await runSuite({
        server: options.server,
        token,
        binding: options.binding,
        scenarios: selectScenarios(options.only),
        maxWaitMs,
        timeoutMs: REQUEST_TIMEOUT_MS,
        ...(options.restartCommand ? { restart: restarter(options.restartCommand, options.server, maxWaitMs) } : {}),
        onResult,
      });
    } else server = await runSelf(options, maxWaitMs, onResult);
  } catch (error) {
    if (error instanceof ClientFailure) return usage(error.message);
    if (error instanceof ServerProblem || options.self) {
      io.stderr.write(`adapter-command conformance: ${(error as Error).message}\n`);
      return EXIT.infrastructure;
    }
    throw error;
  }
  const ms = performance.now() - started;
  if (options.json) io.stdout.write(jsonReport(server, results, ms));
  else io.stdout.write(`${summaryLine(results, ms)}\n`);
  if (options.junit !== undefined) {
    try {
      await writeFile(options.junit, junitReport(results, ms));
    } catch (error) {
      io.stderr.write(`adapter-command conformance: cannot write ${options.junit}: ${(error as Error).message}\n`);
      return EXIT.usage;
    }
  }
  return results.some((result) => result.verdict === "fail") ? EXIT.failed : EXIT.ok;
}

/**
 * `--self`: a workspace in a temporary directory; `serve` without a state dir for every scenario but those of
 * STATE_DIR_ONLY, then with one (and a short TTL, restarted for AC-4) for the IDEM family. Returns the first URL.
 */
async function runSelf(
  options: ConformanceOptions,
  maxWaitMs: number,
  onResult: (result: Result) => void,
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "adapter-command-conformance-"));
  const servers: SelfServer[] = [];
  // Ctrl-C: each serve is stopped as at the end (SIGTERM, so it ends its commands; SIGKILL after 10 s); a second
  // Ctrl-C kills at once.
  const interrupted = () => {
    stopping = true;
    process.once("SIGINT", () => killAll());
    void Promise.all(servers.map((server) => server.stop())).finally(() => {
      rmSync(dir, { recursive: true, force: true });
      process.exit(EXIT.canceled);
    });
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  try {
    const workspace = join(dir, "workspace");
    await writeWorkspace(workspace);
    const token = randomBytes(32).toString("hex");
    const tokenFile = join(dir, "token");
    await writeFile(tokenFile, token, { mode: 0o600 });
    const setups = [
      { name: "memory", extra: [], scenarios: selectScenarios(options.only, STATE_DIR_ONLY), restart: false },
      {
        name: "state-dir",
        extra: ["--state-dir", join(dir, "state"), "--idempotency-ttl-seconds", String(SELF_TTL_SECONDS)],
        scenarios: selectScenarios(options.only).filter((scenario) => scenario.family === "IDEM"),
        restart: true,
      },
    ];
    let first = "";
    for (const setup of setups) {
      if (setup.scenarios.length === 0) continue;
      const server = await SelfServer.start({ workspace, tokenFile, extra: setup.extra });
      servers.push(server);
      first ||= server.url;
      await runSuite({
        server: server.url,
        token,
        binding: options.binding,
        scenarios: setup.scenarios,
        maxWaitMs,
        timeoutMs: REQUEST_TIMEOUT_MS,
        setup: setup.name,
        ...(setup.restart ? { restart: () => server.restart() } : {}),
        onResult,
      });
      await server.stop();
    }
    return first;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
    await rm(dir, { recursive: true, force: true });
  }
}
