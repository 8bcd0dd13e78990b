// Helpers for scripts/bench.mjs: a JSON-RPC client for `serve --stdio`, child bookkeeping, timing and statistics.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = fileURLToPath(new URL("../../bin/adapter-command.js", import.meta.url));
/** The bench's own `--workspace`: one working directory per runner, picked with `working_dir`. */
export const WORKSPACE = fileURLToPath(new URL("./workspace", import.meta.url));
export const RUNNER = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
export const REQUEST = ".aiwg/ops/runs/req.json";
export const ADAPTER_URI = "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1";
export const HITL_URI = "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1";
export const MiB = 1024 * 1024;

/** Wall-clock milliseconds with sub-millisecond resolution; the runners stamp with the same expression. */
export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const log = (line) => process.stderr.write(`bench: ${line}\n`);

// ---------------------------------------------------------------------------------------------------------------
// Children: every process the bench starts is tracked, so that an abort leaves none behind.

const children = new Set();

export function track(child) {
  children.add(child);
  child.once("exit", () => children.delete(child));
  return child;
}

/** SIGTERM to every live child (a bridge then cancels its runners), SIGKILL to what is left after `graceMs`. */
export async function killAll(graceMs = 5000) {
  const live = [...children];
  for (const child of live) child.kill("SIGTERM");
  const deadline = Date.now() + graceMs;
  while (children.size > 0 && Date.now() < deadline) await sleep(50);
  for (const child of children) child.kill("SIGKILL");
}

process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

/** Spawns `node args...` and resolves with its exit once its pipes have closed. */
export function runNode(args, { cwd = ROOT, env, stdout = "ignore", stdin = "ignore" } = {}) {
  const child = track(
    spawn(process.execPath, args, {
      cwd,
      env: env ? { ...process.env, ...env } : process.env,
      stdio: [stdin, stdout, "pipe"],
    }),
  );
  child.stdout?.resume(); // drained and dropped: an unread pipe would hold up "close"
  let stderr = "";
  child.stderr.on("data", (chunk) => {
    if (stderr.length < 4096) stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => resolve({ code, signal, stderr }));
  });
}

/** The path of a bench runner, and its working directory. */
export function runnerOf(name) {
  const cwd = `${WORKSPACE}/${name}`;
  return { cwd, args: [`${cwd}/${RUNNER}`, "--request", REQUEST] };
}

// ---------------------------------------------------------------------------------------------------------------
// NDJSON

/** Splits a byte stream into lines (without the `\n`), each handed over as a Buffer. */
export class LineSplitter {
  constructor(onLine) {
    this.onLine = onLine;
    this.parts = [];
  }

  push(chunk) {
    let start = 0;
    let nl = chunk.indexOf(10, start);
    while (nl !== -1) {
      let line = chunk.subarray(start, nl);
      if (this.parts.length > 0) {
        this.parts.push(line);
        line = Buffer.concat(this.parts);
        this.parts = [];
      }
      this.onLine(line);
      start = nl + 1;
      nl = chunk.indexOf(10, start);
    }
    if (start < chunk.length) this.parts.push(chunk.subarray(start));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The bridge

/** Send params for the bench runner `name`. */
export function sendParams(name, { textLine = false, timeoutSeconds = 600, blocking, text = `bench ${name}` } = {}) {
  const envelope = {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", RUNNER, "--request", REQUEST],
    working_dir: name,
    timeout_seconds: timeoutSeconds,
    ...(textLine ? { input_mode: "text-line" } : {}),
  };
  return {
    message: {
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      parts: [{ kind: "text", text }],
      metadata: { [ADAPTER_URI]: envelope },
    },
    ...(blocking === undefined ? {} : { configuration: { blocking } }),
    ...(textLine ? { metadata: { "a2a-service-parameters": { "A2A-Extensions": HITL_URI } } } : {}),
  };
}

/** The send params that answer an open prompt. */
export function answerParams(task, promptId, text) {
  return {
    message: {
      kind: "message",
      role: "user",
      messageId: crypto.randomUUID(),
      taskId: task.taskId,
      contextId: task.contextId,
      parts: [{ kind: "text", text }],
      metadata: { hitl_response_for: { prompt_id: promptId, payload: { text } } },
    },
    metadata: { "a2a-service-parameters": { "A2A-Extensions": HITL_URI } },
  };
}

/**
 * One `adapter-command serve --stdio` process. Every stdout line is parsed; responses settle `request` promises,
 * `tasks/event` notifications go to the listeners added with `onEvent`.
 */
/**
 * One `serve --stdio`; `nodeFlags` and BENCH_NODE_FLAGS add node flags to it (`--cpu-prof --cpu-prof-dir=DIR` to
 * profile it).
 */
export class Bridge {
  constructor(args = [], { env, nodeFlags = [] } = {}) {
    const flags = [...nodeFlags, ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(" ") : [])];
    this.child = track(
      spawn(process.execPath, [...flags, BIN, "serve", "--stdio", "--workspace", WORKSPACE, ...args], {
        cwd: ROOT,
        env: { ...process.env, NO_COLOR: "1", ...env },
        stdio: ["pipe", "pipe", "pipe"],
      }),
    );
    this.pid = this.child.pid;
    this.nextId = 1;
    this.pending = new Map();
    this.listeners = new Set();
    this.stderr = "";
    this.protocolErrors = 0;
    this.child.stdin.on("error", () => {});
    this.child.stderr.on("data", (chunk) => {
      this.stderr = (this.stderr + chunk).slice(-8192);
    });
    const splitter = new LineSplitter((line) => this.onLine(line));
    this.child.stdout.on("data", (chunk) => splitter.push(chunk));
    this.exited = new Promise((resolve) => this.child.once("close", (code, signal) => resolve({ code, signal })));
    this.exited.then(() => {
      for (const { reject } of this.pending.values()) reject(new Error(`bridge exited; stderr: ${this.stderr}`));
      this.pending.clear();
    });
  }

  onLine(line) {
    let message;
    try {
      message = JSON.parse(line.toString("utf8"));
    } catch {
      this.protocolErrors += 1;
      return;
    }
    const messages = Array.isArray(message) ? message : [message];
    for (const m of messages) {
      if (m.method === "tasks/event") {
        for (const listener of this.listeners) listener(m.params);
      } else if (m.id !== undefined && this.pending.has(m.id)) {
        const { resolve, reject, method } = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error) reject(new Error(`${method}: ${m.error.code} ${m.error.message} ${JSON.stringify(m.error.data)}`));
        else resolve(m.result);
      } else {
        this.protocolErrors += 1;
      }
    }
  }

  /** `promise`, or a rejection if the bridge exits before it settles. */
  guard(promise) {
    const died = this.exited.then(({ code, signal }) => {
      throw new Error(`the bridge exited (${signal ?? `code ${code}`}); its stderr ends: ${this.stderr.slice(-600)}`);
    });
    died.catch(() => {});
    return Promise.race([promise, died]);
  }

  onEvent(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
    });
  }

  /** The containment guard the bridge said it uses at start (`containment: <kind>` on stderr). */
  get guardKind() {
    return /containment: (\w+)/.exec(this.stderr)?.[1] ?? "unknown";
  }

  /** Resolves once the bridge has logged that it serves (so start-up is not counted in what follows). */
  async ready(timeoutMs = 15000) {
    const deadline = Date.now() + timeoutMs;
    while (!this.stderr.includes("serving")) {
      if (Date.now() > deadline) throw new Error(`bridge did not start; stderr: ${this.stderr}`);
      await sleep(10);
    }
    await this.request("agent/getCard", {});
  }

  /** SIGTERM (a clean shutdown: the bridge cancels what runs and exits; stdin's end alone would let it run on); SIGKILL if it has not after a while. */
  async close(timeoutMs = 8000) {
    this.child.stdin.end();
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}

/** Rejects after `ms` with `what` in the message, unless `promise` settles first. */
export function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------------------------------
// /proc

/** VmRSS and VmHWM of `pid` in bytes, or undefined once it has gone. */
export function memoryOf(pid) {
  let status;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return undefined;
  }
  const field = (name) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status);
    return match ? Number(match[1]) * 1024 : undefined;
  };
  return { rss: field("VmRSS"), hwm: field("VmHWM") };
}

/**
 * CPU seconds (user + system) `pid` has used so far, from /proc/<pid>/stat (clock ticks, taken as 100 a second), or
 * undefined once it has gone. Less swayed by other work on the machine than wall-clock rates.
 */
export function cpuSecondsOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Statistics

/** The q-quantile (0..1) with linear interpolation between closest ranks. */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

export const median = (values) => quantile(values, 0.5);

/** The line of a figure that has no numbers (a group that failed, or one skipped), with `detail` saying why. */
export const noFigure = (name, detail) => ({
  name,
  value: null,
  unit: null,
  baseline: null,
  ratio: null,
  goal: null,
  ...detail,
});

/** Rounds to 3 decimals (figures are printed, not computed with). */
export const round = (x) => (typeof x === "number" && Number.isFinite(x) ? Math.round(x * 1000) / 1000 : null);
