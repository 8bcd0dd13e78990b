// A `serve --stdio` bridge over real pipes for the stress and property tests: requests, responses, notifications.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { FIXTURES, startCli } from "../helpers/cli.js";
import { pidRunning, procStat, rssOf, runnersOf } from "../helpers/processes.js";

export { pidRunning, procStat, rssOf, runnersOf };

export const ADAPTER = "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1";
export const HITL = "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1";
export const RUNNER = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
export const REQUEST = ".aiwg/ops/runs/req.json";

// biome-ignore lint/suspicious/noExplicitAny: wire messages are checked field by field by the tests
export type Wire = any;

export interface BridgeOptions {
  workspace?: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
}

interface Waiter {
  accept(message: Wire): boolean;
  resolve(message: Wire): void;
}

/** One bridge process: every stdout line is parsed and kept; stderr is kept as text. */
export class Bridge {
  readonly child: ChildProcessWithoutNullStreams;
  /** Every JSON value the bridge wrote, in order. */
  readonly messages: Wire[] = [];
  /** stdout lines that were not JSON (the contract allows none). */
  readonly garbage: string[] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffered = "";
  private waiters: Waiter[] = [];
  private nextId = 0;

  constructor(options: BridgeOptions = {}) {
    this.child = startCli(["serve", "--stdio", "--workspace", options.workspace ?? FIXTURES, ...(options.args ?? [])], {
      ...(options.env ? { env: options.env } : {}),
    });
    this.child.stdin.on("error", () => {});
    this.child.stdout.setEncoding("utf8");
    this.child.stdout.on("data", (text: string) => this.take(text));
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (text: string) => {
      this.stderr += text;
    });
    this.exited = new Promise((resolve) => this.child.on("close", (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.child.pid as number;
  }

  private take(text: string): void {
    this.buffered += text;
    let newline = this.buffered.indexOf("\n");
    while (newline >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      newline = this.buffered.indexOf("\n");
      let message: Wire;
      try {
        message = JSON.parse(line);
      } catch {
        this.garbage.push(line);
        continue;
      }
      this.messages.push(message);
      for (const waiter of [...this.waiters]) {
        if (waiter.accept(message)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        }
      }
    }
  }

  /** Writes text as it is (the caller adds the newline). */
  write(text: string | Buffer): void {
    this.child.stdin.write(text);
  }

  /** Writes one JSON value as a line. */
  send(value: unknown): void {
    this.write(`${JSON.stringify(value)}\n`);
  }

  newId(prefix = "r"): string {
    this.nextId += 1;
    return `${prefix}-${this.nextId}`;
  }

  /** The first message (already received or still to come, from index `from`) that `accept` takes. */
  waitFor(accept: (message: Wire) => boolean, what: string, timeoutMs = 30_000, from = 0): Promise<Wire> {
    const seen = this.messages.slice(from).find(accept);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      const waiter: Waiter = {
        accept,
        resolve: (message) => {
          clearTimeout(timer);
          resolve(message);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** The response with this id (a batch response counts once per item). */
  response(id: unknown, timeoutMs = 30_000): Promise<Wire> {
    const matches = (message: Wire) => !Array.isArray(message) && message?.id === id && message.method === undefined;
    return this.waitFor(matches, `the response to ${JSON.stringify(id)}`, timeoutMs);
  }

  /** Sends a request and resolves with its response (result or error). */
  request(method: string, params?: unknown, timeoutMs = 30_000): Promise<Wire> {
    const id = this.newId();
    this.send({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return this.response(id, timeoutMs);
  }

  /** Sends a request and resolves with its result; an error response fails. */
  async call(method: string, params?: unknown, timeoutMs = 30_000): Promise<Wire> {
    const response = await this.request(method, params, timeoutMs);
    if (response.error) throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  /** `tasks/event` notifications for a task, received so far. */
  events(taskId: string): Wire[] {
    return this.messages.filter((m) => m?.method === "tasks/event" && m.params?.taskId === taskId).map((m) => m.params);
  }

  /** The final status-update of a task. */
  finalEvent(taskId: string, timeoutMs = 30_000): Promise<Wire> {
    return this.waitFor(
      (m) => m?.method === "tasks/event" && m.params?.taskId === taskId && m.params.final === true,
      `the final event of ${taskId}`,
      timeoutMs,
    ).then((m) => m.params);
  }

  /** Ends stdin and waits for the exit (SIGKILL after `timeoutMs`). */
  async close(timeoutMs = 10_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Last resort in `after` hooks. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }
}

/** Send params for an adapter-command envelope on a fixture (`working_dir` = the fixture's name). */
export function envelopeParams(
  workingDir: string,
  options: { text?: string; fields?: Record<string, unknown>; hitl?: boolean; blocking?: boolean } = {},
): Record<string, unknown> {
  return {
    message: {
      kind: "message",
      messageId: `m-${Math.random().toString(36).slice(2)}`,
      role: "user",
      parts: [{ kind: "text", text: options.text ?? "stress" }],
      metadata: {
        [ADAPTER]: {
          adapter: "sandbox-agent-runner",
          mode: "plan",
          command: ["node", RUNNER, "--request", REQUEST],
          working_dir: workingDir,
          timeout_seconds: 60,
          ...options.fields,
        },
      },
    },
    ...(options.blocking === false ? { configuration: { blocking: false } } : {}),
    ...(options.hitl ? { metadata: { "a2a-service-parameters": { "A2A-Extensions": HITL } } } : {}),
  };
}

/** A task's artifact text for a stream (its chunks joined in order). */
export function artifactText(task: Wire, stream: "stdout" | "stderr"): string {
  const artifact = (task?.artifacts ?? []).find((a: Wire) => a.artifactId === stream);
  return artifact ? artifact.parts.map((p: Wire) => p.text).join("") : "";
}

/**
 * What the `payload-msg` fixture writes for a message: the same generator as its runner.mjs, so the bytes a task
 * reports can be checked against the bytes its command wrote.
 */
export function payloadFor(message: string): { stdout: string; stderr: string } {
  const make = (kind: string, size: number) => {
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < size; i++) {
      const line = `${kind} ${message} ${i} é€𝄞\n`;
      lines.push(line);
      bytes += Buffer.byteLength(line);
    }
    return lines.join("");
  };
  return { stdout: make("out", 16 * 1024), stderr: make("err", 4 * 1024) };
}

// --- /proc --------------------------------------------------------------------------------------------------------

export const HAS_PROC = (() => {
  try {
    return readdirSync("/proc").includes("self");
  } catch {
    return false;
  }
})();

/** Live processes whose command line contains `needle`. */
export function processesWith(needle: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\u0000", " ");
    } catch {
      continue;
    }
    if (cmdline.includes(needle) && pidRunning(Number(entry))) found.push({ pid: Number(entry), cmdline });
  }
  return found;
}

export const MiB = 1024 * 1024;
