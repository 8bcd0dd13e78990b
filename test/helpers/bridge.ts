// `serve --stdio` over the child's real pipes, as an orchestrator drives it (CONTRACT section 5).
// Requests go through json-rpc-2.0's JSONRPCClient; every stdout line is checked to be JSON-RPC 2.0; `tasks/event`
// notifications go to per-task queues, and responses to lines written raw are kept apart. Every wait has a timeout,
// so a broken bridge fails the test instead of hanging it.
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { after, before } from "node:test";
import { JSONRPCClient, type JSONRPCResponse } from "json-rpc-2.0";
import { LineSplitter } from "../../src/io/line-splitter.js";
import { FIXTURES, startCli } from "./cli.js";
import { notJsonRpc } from "./jsonrpc-lines.js";
import { WaitableQueue } from "./waitable-queue.js";
import { type RpcError, type TaskEvent, taskIdOf, type Wire } from "./wire.js";

/** Generous: other suites may load the machine; a bridge that is merely slow must not fail a test. */
export const DEFAULT_TIMEOUT_MS = 15_000;
/** How long a new bridge may take to answer its first request. */
export const STARTUP_TIMEOUT_MS = 30_000;

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
  /** Sees every stdout chunk as it arrives, before it is split into lines (to read a line too long to keep). */
  tap?: (chunk: Buffer) => void;
}

export type ExitStatus = { code: number | null; signal: NodeJS.Signals | null };

const CLIENT_TIMEOUT = -32099;

export class RpcBridge {
  readonly child: ChildProcessWithoutNullStreams;
  readonly client: JSONRPCClient;
  /** Every stdout line that was not JSON-RPC 2.0, with why (should stay empty). */
  readonly protocolProblems: string[] = [];
  /** Stdout lines seen so far (each counted once, whatever it was). */
  lineCount = 0;
  /** The text of each single response to a line sent raw, by its id (to compare answers byte for byte). */
  readonly rawText = new Map<string | number, string>();
  /** Line number (1-based) at which each response id arrived; for ordering checks. */
  readonly responseLine = new Map<string | number, number>();
  exitStatus: ExitStatus | undefined;
  private readonly eventLines = new WeakMap<TaskEvent, number>();
  private readonly events = new Map<string, WaitableQueue<TaskEvent>>();
  private readonly raw = new WaitableQueue<Wire>();
  private readonly clientIds = new Set<string | number>();
  private readonly exited: Promise<ExitStatus>;
  private readonly lines: LineSplitter;
  private readonly onEvent: ((event: TaskEvent) => boolean) | undefined;
  private stderrText = "";
  private readonly stderrWaiters: Array<() => void> = [];
  private nextId = 0;

  constructor(options: BridgeOptions = {}) {
    this.lines = new LineSplitter(options.maxLineBytes ?? 64 * 1024 * 1024);
    this.onEvent = options.onEvent;
    this.child = startCli(
      ["serve", "--stdio", "--workspace", options.workspace ?? FIXTURES, ...(options.args ?? [])],
      options.env ? { env: options.env } : {},
    );
    this.child.stdin.on("error", () => {}); // a bridge that died: the test sees it through its answers
    const tap = options.tap;
    this.child.stdout.on("data", (chunk: Buffer) => {
      tap?.(chunk);
      for (const frame of this.lines.push(chunk)) {
        if (frame.kind === "line") this.line(frame.line.toString("utf8"));
        else this.protocolProblems.push(`a stdout line of ${frame.bytes} bytes, over the reader's limit`);
      }
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      // Bounded: the last 64 KiB of diagnostics are enough to explain a failure.
      this.stderrText = (this.stderrText + chunk.toString("utf8")).slice(-65536);
      for (const waiter of this.stderrWaiters.splice(0)) waiter();
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

  /** The single response with this id to a line sent raw; other raw responses stay for other waits. */
  responseTo(id: string | number, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Wire> {
    return this.raw.pick(
      (response) => !Array.isArray(response) && response?.id === id,
      timeoutMs,
      () => `the response to ${JSON.stringify(id)}`,
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

  /** Events of the task in order until (and including) the one for which `last` holds. */
  async eventsUntil(taskId: string, last: (event: TaskEvent) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS) {
    const until = Date.now() + timeoutMs;
    const seen: TaskEvent[] = [];
    for (;;) {
      const event = await this.nextEvent(taskId, () => true, Math.max(1, until - Date.now()));
      seen.push(event);
      if (last(event)) return seen;
    }
  }

  /** Events of the task in order until (and including) the final 0.3 status-update. */
  eventsUntilFinal(taskId: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<TaskEvent[]> {
    return this.eventsUntil(taskId, (event) => event.kind === "status-update" && event.final === true, timeoutMs);
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
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  /** Stops reading the bridge's stdout (a consumer that does not keep up). */
  pause(): void {
    this.child.stdout.pause();
  }

  resume(): void {
    this.child.stdout.resume();
  }

  /** Resolves once stderr matches `pattern` (checked as each chunk arrives); rejects after `timeoutMs`. */
  async waitStderr(pattern: RegExp, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(this.stderrText)) {
      const left = until - Date.now();
      if (left <= 0 || this.exitStatus) throw new Error(`no ${pattern} on stderr: ${this.stderrText}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.stderrWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits for the bridge to exit; throws after `timeoutMs`. */
  async waitExit(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<ExitStatus> {
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

  /** Ends stdin and waits for the exit, SIGKILLs after `timeoutMs`; resolves with how it exited. Safe to call twice. */
  /** Stops the bridge now (SIGTERM: what runs is canceled); the end of stdin alone would let it run to its end. */
  async close(timeoutMs = 6000): Promise<ExitStatus> {
    if (this.exitStatus) return this.exitStatus;
    this.child.stdin.end();
    this.child.kill("SIGTERM");
    try {
      return await this.waitExit(timeoutMs);
    } catch {
      this.child.kill("SIGKILL");
      return this.waitExit(2000);
    }
  }

  /** Last resort in `after` hooks: SIGKILL unless it has exited. */
  kill(): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGKILL");
  }

  private queueOf(taskId: string): WaitableQueue<TaskEvent> {
    let queue = this.events.get(taskId);
    if (!queue) {
      queue = new WaitableQueue<TaskEvent>();
      this.events.set(taskId, queue);
    }
    return queue;
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
      const taskId = taskIdOf(event);
      if (taskId === undefined) {
        this.protocolProblems.push(`line ${lineNo}: tasks/event without a taskId`);
        return;
      }
      this.eventLines.set(event, lineNo);
      if (this.onEvent && !this.onEvent(event)) return;
      this.queueOf(taskId).push(event);
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
      if (!Array.isArray(message) && (typeof message.id === "string" || typeof message.id === "number"))
        this.rawText.set(message.id, text);
      this.raw.push(message);
    }
  }
}

/** Starts `serve --stdio` on the fixture workspace (or `options.workspace`). */
export function startBridge(options: BridgeOptions = {}): RpcBridge {
  return new RpcBridge(options);
}

/**
 * A bridge for the tests of one `describe`: started (and answering) before them, closed after them. Call it inside
 * the `describe`; the getter it returns gives the bridge.
 */
export function suiteBridge(options: BridgeOptions = {}): () => RpcBridge {
  let bridge: RpcBridge | undefined;
  before(async () => {
    bridge = startBridge(options);
    await bridge.ready();
  });
  after(async () => {
    await bridge?.close();
  });
  return () => {
    if (!bridge) throw new Error("the suite's bridge is not started yet (use it inside a test)");
    return bridge;
  };
}
