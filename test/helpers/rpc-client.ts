import assert from "node:assert/strict";
// A small JSON-RPC client for `serve --stdio` over the child's real pipes (CONTRACT section 5).
// Requests go through json-rpc-2.0's JSONRPCClient; a bounded line reader checks that every stdout line is
// JSON-RPC 2.0, routes `tasks/event` notifications to per-task queues, and keeps responses to raw lines apart.
// Every wait has a timeout, so a broken bridge fails the test instead of hanging it.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { readdirSync } from "node:fs";
import { JSONRPCClient, type JSONRPCResponse } from "json-rpc-2.0";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { FIXTURES, startCli } from "./cli.js";
import { procStat, rssOf } from "./processes.js";

export { ADAPTER_URI, HITL_URI };

/** Generous: other suites may load the machine; a bridge that is merely slow must not fail a test. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How long a new bridge may take to answer its first request. */
export const STARTUP_TIMEOUT_MS = 30_000;

/** A `tasks/event` notification's params (A2A 0.3 event), loosely typed: tests assert on the shapes. */
export interface TaskEvent {
  kind: "status-update" | "artifact-update";
  taskId: string;
  contextId: string;
  // biome-ignore lint/suspicious/noExplicitAny: wire objects are asserted on, not trusted
  status?: any;
  final?: boolean;
  // biome-ignore lint/suspicious/noExplicitAny: wire objects are asserted on, not trusted
  artifact?: any;
  append?: boolean;
  lastChunk?: boolean;
}

// biome-ignore lint/suspicious/noExplicitAny: wire objects are asserted on, not trusted
export type Wire = any;

export interface RpcError {
  code: number;
  message: string;
  data?: Wire;
}

export interface BridgeOptions {
  /** Extra arguments after `serve --stdio --workspace <fixtures>`. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** Replaces the default `--workspace` (the fixture workspace). */
  workspace?: string;
  /** Called for every `tasks/event`; return false to not queue it (a flood's output need not be kept). */
  onEvent?: (event: TaskEvent) => boolean;
  /** Longest stdout line the reader accepts before it reports a protocol problem (default 64 MiB). */
  maxLineBytes?: number;
}

/** Why a parsed stdout line is not JSON-RPC 2.0 that a server may send, or undefined when it is. */
export function notJsonRpc(value: unknown): string | undefined {
  const one = (item: unknown): string | undefined => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) return "not an object";
    const message = item as Record<string, unknown>;
    if (message.jsonrpc !== "2.0") return 'no "jsonrpc": "2.0"';
    if ("method" in message) {
      if (typeof message.method !== "string") return "method is not a string";
      if ("id" in message) return "a request from the server (it only answers and notifies)";
      return undefined;
    }
    const id = message.id;
    if (!(id === null || typeof id === "string" || typeof id === "number")) return "a response without a valid id";
    const hasResult = "result" in message;
    const hasError = "error" in message;
    if (hasResult === hasError) return "a response needs exactly one of result and error";
    if (hasError) {
      const error = message.error as Record<string, unknown> | null;
      if (typeof error !== "object" || error === null) return "error is not an object";
      if (!Number.isInteger(error.code)) return "error.code is not an integer";
      if (typeof error.message !== "string") return "error.message is not a string";
    }
    return undefined;
  };
  if (Array.isArray(value)) {
    if (value.length === 0) return "an empty batch";
    for (const item of value) {
      const problem = one(item);
      if (problem) return `in a batch: ${problem}`;
    }
    return undefined;
  }
  return one(value);
}

interface Waiter<T> {
  accept: (item: T) => boolean;
  resolve: (item: T) => void;
}

/** Items in arrival order; `take` removes and returns the first that matches (skipping none it does not own). */
class Queue<T> {
  private readonly items: T[] = [];
  private readonly waiters: Array<Waiter<T>> = [];

  push(item: T): void {
    const index = this.waiters.findIndex((waiter) => waiter.accept(item));
    if (index >= 0) {
      const [waiter] = this.waiters.splice(index, 1);
      waiter?.resolve(item);
      return;
    }
    this.items.push(item);
  }

  get length(): number {
    return this.items.length;
  }

  /** Removes and returns the first item for which `accept` holds; earlier items that do not match are dropped. */
  take(accept: (item: T) => boolean, timeoutMs: number, what: () => string): Promise<T> {
    while (this.items.length > 0) {
      const item = this.items.shift() as T;
      if (accept(item)) return Promise.resolve(item);
    }
    return new Promise<T>((resolve, reject) => {
      const waiter: Waiter<T> = {
        accept: () => true,
        resolve: (item) => {
          // Items that do not match are consumed, like the queued ones above.
          if (accept(item)) {
            clearTimeout(timer);
            resolve(item);
          } else this.waiters.push(waiter);
        },
      };
      const timer = setTimeout(() => {
        const at = this.waiters.indexOf(waiter);
        if (at >= 0) this.waiters.splice(at, 1);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what()}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  drain(): T[] {
    return this.items.splice(0);
  }
}

export class RpcBridge {
  readonly child: ChildProcessWithoutNullStreams;
  readonly client: JSONRPCClient;
  /** Every stdout line that was not JSON-RPC 2.0, with why (should stay empty). */
  readonly protocolProblems: string[] = [];
  /** Stdout lines seen so far (each counted once, whatever it was). */
  lineCount = 0;
  /** Line number (1-based) at which each response id arrived; for ordering checks. */
  readonly responseLine = new Map<string | number, number>();
  private readonly eventLines = new WeakMap<TaskEvent, number>();
  private readonly events = new Map<string, Queue<TaskEvent>>();
  private readonly raw = new Queue<Wire>();
  private readonly clientIds = new Set<string | number>();
  private readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly maxLineBytes: number;
  private readonly onEvent: ((event: TaskEvent) => boolean) | undefined;
  private parts: Buffer[] = [];
  private size = 0;
  private stderrText = "";
  private nextId = 0;
  exitStatus: { code: number | null; signal: NodeJS.Signals | null } | undefined;

  constructor(options: BridgeOptions = {}) {
    this.maxLineBytes = options.maxLineBytes ?? 64 * 1024 * 1024;
    this.onEvent = options.onEvent;
    this.child = startCli(
      ["serve", "--stdio", "--workspace", options.workspace ?? FIXTURES, ...(options.args ?? [])],
      options.env ? { env: options.env } : {},
    );
    this.child.stdin.on("error", () => {}); // a bridge that died: the test sees it through its answers
    this.child.stdout.on("data", (chunk: Buffer) => this.read(chunk));
    this.child.stderr.on("data", (chunk: Buffer) => {
      // Bounded: the last 64 KiB of diagnostics are enough to explain a failure.
      this.stderrText = (this.stderrText + chunk.toString("utf8")).slice(-65536);
    });
    this.exited = new Promise((resolve) => {
      this.child.once("close", (code, signal) => {
        this.exitStatus = { code, signal };
        this.client.rejectAllPendingRequests(`the bridge exited (code ${code}, signal ${signal})`);
        resolve({ code, signal });
      });
    });
    this.client = new JSONRPCClient(
      (payload) => {
        for (const request of [payload].flat()) if (request.id !== undefined) this.clientIds.add(request.id);
        this.sendLine(JSON.stringify(payload));
      },
      () => `c${++this.nextId}`,
    );
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /** Writes one line (a `\n` is added unless `terminator` says otherwise). */
  sendLine(text: string | Buffer, terminator = "\n"): void {
    if (this.child.stdin.writable) this.child.stdin.write(Buffer.concat([Buffer.from(text), Buffer.from(terminator)]));
  }

  /** Writes bytes as they are. */
  sendBytes(bytes: Buffer | string): void {
    if (this.child.stdin.writable) this.child.stdin.write(bytes);
  }

  /** The full response to a request (result or error). Throws only when no response came in time. */
  async callRaw(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<JSONRPCResponse> {
    const id = `c${++this.nextId}`;
    const response = await this.client
      .timeout(timeoutMs, (rid) => ({
        jsonrpc: "2.0",
        id: rid,
        error: { code: CLIENT_TIMEOUT, message: `no response within ${timeoutMs} ms` },
      }))
      .requestAdvanced({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    if (response.error?.code === CLIENT_TIMEOUT) {
      throw new Error(`no response to ${method} within ${timeoutMs} ms; bridge stderr:\n${this.stderrText}`);
    }
    return response;
  }

  /** Resolves once the bridge answers (agent/getCard); returns the card. */
  ready(timeoutMs = STARTUP_TIMEOUT_MS): Promise<Wire> {
    return this.call("agent/getCard", undefined, timeoutMs);
  }

  /** The result of a request; an error response throws, with its code and data in the message. */
  async call(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Wire> {
    const response = await this.callRaw(method, params, timeoutMs);
    if (response.error) {
      throw new Error(`${method} failed: ${JSON.stringify(response.error)}`);
    }
    return response.result;
  }

  /** The error of a request that must fail; a success throws. */
  async callError(method: string, params?: unknown, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<RpcError> {
    const response = await this.callRaw(method, params, timeoutMs);
    if (!response.error) throw new Error(`${method} succeeded, expected an error: ${JSON.stringify(response.result)}`);
    return response.error;
  }

  /** The next response to a line sent with `sendLine` (a single response or a batch array), in arrival order. */
  nextRawResponse(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Wire> {
    return this.raw.take(
      () => true,
      timeoutMs,
      () => "a response to a raw line",
    );
  }

  /** Raw responses that arrived and were not taken yet. */
  pendingRawResponses(): Wire[] {
    return this.raw.drain();
  }

  /**
   * The next `tasks/event` of `taskId` for which `accept` holds; events before it that do not match are consumed.
   */
  nextEvent(
    taskId: string,
    accept: (event: TaskEvent) => boolean = () => true,
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<TaskEvent> {
    return this.queueOf(taskId).take(accept, timeoutMs, () => `an event of task ${taskId}`);
  }

  /** Events of the task in order until (and including) the final status-update. */
  async eventsUntilFinal(taskId: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<TaskEvent[]> {
    const until = Date.now() + timeoutMs;
    const seen: TaskEvent[] = [];
    for (;;) {
      const event = await this.nextEvent(taskId, () => true, Math.max(1, until - Date.now()));
      seen.push(event);
      if (event.kind === "status-update" && event.final) return seen;
    }
  }

  /** Events of the task that arrived and were not taken yet. */
  queuedEvents(taskId: string): TaskEvent[] {
    return this.queueOf(taskId).drain();
  }

  /** The stdout line number of an event. */
  lineOf(event: TaskEvent): number | undefined {
    return this.eventLines.get(event);
  }

  /** Polls `tasks/get` until `accept` holds for the task; returns it. */
  async waitTask(id: string, accept: (task: Wire) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Wire> {
    const until = Date.now() + timeoutMs;
    let task: Wire;
    for (;;) {
      task = await this.call("tasks/get", { id }, Math.max(1, until - Date.now()));
      if (accept(task)) return task;
      if (Date.now() >= until) {
        throw new Error(`timed out after ${timeoutMs} ms waiting on task ${id}; last: ${JSON.stringify(task.status)}`);
      }
      await sleep(25);
    }
  }

  /** Stops reading the bridge's stdout (a consumer that does not keep up). */
  pause(): void {
    this.child.stdout.pause();
  }

  resume(): void {
    this.child.stdout.resume();
  }

  /** Waits for the bridge to exit; throws after `timeoutMs`. */
  async waitExit(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the bridge did not exit within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Ends stdin, waits for the exit, SIGKILLs after `timeoutMs`. Safe to call twice. */
  async close(timeoutMs = 6000): Promise<void> {
    if (this.exitStatus) return;
    this.child.stdin.end();
    try {
      await this.waitExit(timeoutMs);
    } catch {
      this.child.kill("SIGKILL");
      await this.waitExit(2000).catch(() => {});
    }
  }

  private queueOf(taskId: string): Queue<TaskEvent> {
    let queue = this.events.get(taskId);
    if (!queue) {
      queue = new Queue<TaskEvent>();
      this.events.set(taskId, queue);
    }
    return queue;
  }

  private read(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.size + (end - start) > this.maxLineBytes) {
        this.protocolProblems.push(`a stdout line over ${this.maxLineBytes} bytes`);
        this.parts = [];
        this.size = 0;
      } else if (end > start) {
        this.parts.push(chunk.subarray(start, end));
        this.size += end - start;
      }
      if (newline === -1) return;
      const line = Buffer.concat(this.parts, this.size).toString("utf8");
      this.parts = [];
      this.size = 0;
      start = newline + 1;
      this.line(line);
    }
  }

  private line(text: string): void {
    this.lineCount += 1;
    const lineNo = this.lineCount;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.protocolProblems.push(`line ${lineNo} is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    const problem = notJsonRpc(value);
    if (problem) {
      this.protocolProblems.push(`line ${lineNo}: ${problem}: ${text.slice(0, 200)}`);
      return;
    }
    const message = value as Wire;
    if (!Array.isArray(message) && typeof message.method === "string") {
      if (message.method !== "tasks/event") {
        this.protocolProblems.push(`line ${lineNo}: unexpected notification ${message.method}`);
        return;
      }
      const event = message.params as TaskEvent;
      if (typeof event?.taskId !== "string") {
        this.protocolProblems.push(`line ${lineNo}: tasks/event without a taskId`);
        return;
      }
      this.eventLines.set(event, lineNo);
      if (this.onEvent && !this.onEvent(event)) return;
      this.queueOf(event.taskId).push(event);
      return;
    }
    const responses = [message].flat() as JSONRPCResponse[];
    const ours = responses.every((response) => response.id !== null && this.clientIds.has(response.id));
    if (ours) {
      for (const response of responses) {
        this.clientIds.delete(response.id as string | number);
        this.responseLine.set(response.id as string | number, lineNo);
      }
      this.client.receive(message);
    } else {
      this.raw.push(message);
    }
  }
}

const CLIENT_TIMEOUT = -32099;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts `serve --stdio` on the fixture workspace (or `options.workspace`). */
export function startBridge(options: BridgeOptions = {}): RpcBridge {
  return new RpcBridge(options);
}

// ---- Requests -------------------------------------------------------------------------------------------

export const REQUEST = ".aiwg/ops/runs/req.json";

export interface EnvelopeOptions {
  text?: string;
  contextId?: string;
  /** Envelope fields over the defaults (working_dir is the fixture's name). */
  envelope?: Record<string, unknown>;
  configuration?: Record<string, unknown>;
  /** Extensions to activate through `params.metadata["a2a-service-parameters"]` (a string is sent as it is). */
  extensions?: string | string[];
}

let messages = 0;

export function messageId(): string {
  messages += 1;
  return `m-${process.pid}-${messages}`;
}

/** MessageSendParams with an adapter-command/v1 envelope for the fixture `workingDir`. */
export function envelopeParams(workingDir: string, options: EnvelopeOptions = {}): Record<string, unknown> {
  const envelope = {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", REQUEST],
    working_dir: workingDir,
    timeout_seconds: 30,
    ...options.envelope,
  };
  return sendParams({ ...options, metadata: { [ADAPTER_URI]: envelope } });
}

/** MessageSendParams for a message without an envelope (echo dispatch). */
export function echoParams(text: string | string[], options: EnvelopeOptions = {}): Record<string, unknown> {
  return sendParams({ ...options, texts: [text].flat() });
}

function sendParams(
  options: EnvelopeOptions & { metadata?: Record<string, unknown>; texts?: string[] },
): Record<string, unknown> {
  const texts = options.texts ?? [options.text ?? "run the fixture"];
  const params: Record<string, unknown> = {
    message: {
      kind: "message",
      messageId: messageId(),
      role: "user",
      parts: texts.map((text) => ({ kind: "text", text })),
      ...(options.contextId ? { contextId: options.contextId } : {}),
      ...(options.metadata ? { metadata: options.metadata } : {}),
    },
  };
  if (options.configuration) params.configuration = options.configuration;
  if (options.extensions !== undefined) {
    const header = typeof options.extensions === "string" ? options.extensions : options.extensions.join(", ");
    params.metadata = { "a2a-service-parameters": { "A2A-Extensions": header } };
  }
  return params;
}

/** An answer to an open prompt (CONTRACT section 4). */
export function answerParams(
  task: { id: string; contextId: string },
  promptId: string,
  payload: unknown,
  overrides: { taskId?: string; contextId?: string; responseFor?: unknown } = {},
): Record<string, unknown> {
  const text = isTextPayload(payload) ? payload.text : "";
  return {
    message: {
      kind: "message",
      messageId: messageId(),
      role: "user",
      parts: [{ kind: "text", text: typeof text === "string" ? text : String(text) }],
      taskId: overrides.taskId ?? task.id,
      contextId: overrides.contextId ?? task.contextId,
      metadata: { hitl_response_for: overrides.responseFor ?? { prompt_id: promptId, payload } },
    },
  };
}

const isTextPayload = (x: unknown): x is { text: unknown } => typeof x === "object" && x !== null && "text" in x;

// ---- Reading tasks --------------------------------------------------------------------------------------

/** The text of one artifact (`stdout` / `stderr`) of a wire task, its parts joined in order. */
export function artifactText(task: Wire, stream: "stdout" | "stderr"): string {
  const artifact = (task.artifacts ?? []).find((a: Wire) => a.artifactId === stream);
  return artifact ? artifact.parts.map((part: Wire) => part.text).join("") : "";
}

/** The text of artifact-update events per stream, in arrival order. */
export function eventText(events: TaskEvent[], stream: "stdout" | "stderr"): string {
  return events
    .filter((event) => event.kind === "artifact-update" && event.artifact?.artifactId === stream)
    .map((event) => (event.artifact.parts as Wire[]).map((part) => part.text).join(""))
    .join("");
}

export const ended = (task: Wire) => ["completed", "failed", "canceled"].includes(task?.status?.state);

// ---- Processes ------------------------------------------------------------------------------------------

const gone = (state: string | undefined) => state === undefined || state === "Z" || state === "X";

/** True while any process of group `pgid` runs (zombies count as gone). */
export function groupRunning(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = procStat(entry);
    if (fields && Number(fields[2]) === pgid && !gone(fields[0])) return true;
  }
  return false;
}

/** Polls until the group is gone; true when it went within `ms`. */
export async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (!groupRunning(pgid)) return true;
    if (Date.now() >= until) return false;
    await sleep(50);
  }
}

/** Best-effort SIGKILL of a group a failed test may have left behind. */
export function killGroup(pgid: number): void {
  try {
    process.kill(-pgid, "SIGKILL");
  } catch {
    // already gone
  }
}

/** VmRSS of a process in KiB, from /proc/<pid>/status; undefined where it can't be read. */
export function rssKiB(pid: number): number | undefined {
  const bytes = rssOf(pid);
  return bytes === undefined ? undefined : bytes / 1024;
}

/**
 * Starts `fixture` through message/stream and reads the `pid <n>` it prints (the pid is its process group);
 * the group is pushed to `track`, for the caller's clean-up.
 */
export async function startWithPid(
  bridge: RpcBridge,
  fixture: string,
  track: number[],
): Promise<{ task: Wire; pgid: number }> {
  const task = await bridge.call("message/stream", envelopeParams(fixture, { envelope: { timeout_seconds: 60 } }));
  const printed = await bridge.nextEvent(
    task.id,
    (e) => e.kind === "artifact-update" && e.artifact.artifactId === "stdout",
  );
  const pgid = Number(/pid (\d+)/.exec(printed.artifact.parts[0].text)?.[1]);
  assert.ok(pgid > 0, printed.artifact.parts[0].text);
  track.push(pgid);
  return { task, pgid };
}
