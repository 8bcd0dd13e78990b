// Spawns the built binary over real pipes, as a user or an orchestrator would.
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Wire } from "./wire.js";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = fileURLToPath(new URL("../../bin/adapter-command.js", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/workspace", import.meta.url));
export const EXAMPLES = fileURLToPath(new URL("../../examples", import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutBytes: Buffer;
}

export interface CliOptions {
  input?: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Another copy of the binary (an install made by the test); the built one by default. */
  bin?: string;
  /** Sees stdout as it comes, for a test that answers what the tool prints while it runs. */
  onStdout?: (chunk: Buffer) => void;
}

/** Starts the binary; the caller reads and writes its pipes. */
export function startCli(args: string[], options: CliOptions = {}): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [options.bin ?? BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: "pipe",
  });
}

/** Runs the binary to the end and collects what it printed. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  const child = startCli(args, options);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => {
    out.push(chunk);
    options.onStdout?.(chunk);
  });
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.stdin.on("error", () => {});
  child.stdin.end(options.input ?? "");
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 30_000);
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const stdoutBytes = Buffer.concat(out);
      resolve({
        code,
        signal,
        stdout: stdoutBytes.toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        stdoutBytes,
      });
    });
  });
}

/**
 * How many tests of a group run at once: enough to overlap their waiting, few enough that a loaded 2-core machine
 * still starts every runner well within its deadline.
 */
export const AT_ONCE = 4;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The tool started in the background, its output collected as it comes. */
export function started(args: string[], options: { guardMs?: number; input?: string; keepStdinOpen?: boolean } = {}) {
  const startedAt = performance.now();
  let firstOutputAt: number | undefined;
  let closedAt: number | undefined;
  let closedAtEpoch: number | undefined;
  const child = startCli(args);
  child.stdin.on("error", () => {});
  if (options.keepStdinOpen) child.stdin.write(options.input ?? "");
  else child.stdin.end(options.input ?? "");
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => {
    firstOutputAt ??= performance.now();
    stdout += text;
  });
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  let isClosed = false;
  const guard = setTimeout(() => child.kill("SIGKILL"), options.guardMs ?? 20_000);
  const closed = new Promise<number | null>((resolve) =>
    child.on("close", (code) => {
      closedAt = performance.now();
      closedAtEpoch = Date.now();
      isClosed = true;
      clearTimeout(guard);
      resolve(code);
    }),
  );
  return {
    child,
    closed,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Seconds from spawning the tool to its exit. */
    total: () => ((closedAt ?? Number.NaN) - startedAt) / 1000,
    /** Seconds from the command's first stdout reaching us to the tool's exit. */
    sinceFirstOutput: () => ((closedAt ?? Number.NaN) - (firstOutputAt ?? Number.NaN)) / 1000,
    /** When the tool exited, in milliseconds since the epoch (the clock of the timestamps it prints). */
    closedAtEpoch: () => closedAtEpoch ?? Number.NaN,
    /** Resolves with the match once stdout matches `pattern`; rejects after `ms`. */
    async waitFor(pattern: RegExp, ms = 10_000): Promise<RegExpExecArray> {
      const until = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(stdout);
        if (match) return match;
        if (Date.now() >= until || isClosed)
          throw new Error(`no ${pattern} on stdout: ${JSON.stringify(stdout)}; stderr: ${JSON.stringify(stderr)}`);
        await sleep(20);
      }
    },
    stop(): void {
      clearTimeout(guard);
      child.stdin.destroy();
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}

/**
 * What `run --json` printed, one event a line, and the times the tool gives in them: `submittedAt`, the timestamp of
 * the submitted status, comes before the dispatch, so a deadline of T s falls no earlier than `submittedAt + T s`
 * however long the tool took to start; `endedAt` is the timestamp of the final status.
 */
export function jsonRun(stdout: string) {
  const events = stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Wire);
  const status = (state: string) => events.find((e) => e.kind === "status-update" && e.status.state === state);
  const final = events.find((e) => e.kind === "status-update" && e.final === true);
  const text = (stream: string) =>
    events
      .filter((e) => e.kind === "artifact-update" && e.artifact.artifactId === stream)
      .flatMap((e) => e.artifact.parts.map((part: Wire) => part.text))
      .join("");
  return {
    events,
    final,
    submittedAt: Date.parse(status("submitted")?.status.timestamp),
    endedAt: Date.parse(final?.status.timestamp),
    stdout: text("stdout"),
  };
}
