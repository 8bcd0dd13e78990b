// `serve --http` for end-to-end tests: the built binary on a free port, and a small HTTP client over node:http
// (which, unlike fetch, lets a test send any Host or Origin), with a Server-Sent Events reader. Every wait has a
// timeout, so a broken server fails the test instead of hanging it.
import assert from "node:assert/strict";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { Agent, type IncomingHttpHeaders, type IncomingMessage, request } from "node:http";
import { DEFAULT_TIMEOUT_MS, STARTUP_TIMEOUT_MS } from "./bridge.js";
import { FIXTURES, startCli } from "./cli.js";
import type { Wire } from "./wire.js";

export interface StartLine {
  url: string;
  agentCard: string;
  tokenFile: string | null;
  /** The operator console's address, with the token in its fragment (CONTRACT section 10). */
  console: string;
}

export interface HttpAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: Wire;
}

export interface RequestOptions {
  method?: string;
  headers?: Record<string, string>;
  /** A value is sent as JSON (with Content-Type application/json unless `headers` names one); a string as it is. */
  body?: unknown;
  /** Leave out the Authorization header. */
  noAuth?: boolean;
  timeoutMs?: number;
}

export interface SseEvent {
  event?: string;
  /** The event's `id:` (CONTRACT 9.4). */
  id?: string;
  data?: Wire;
  /** The raw text of the event's data lines. */
  raw: string;
  comment?: string;
}

/** One SSE answer being read: its status and headers, then its events one by one. */
export class SseReader {
  private buffer = "";
  private readonly events: SseEvent[] = [];
  private waiting: (() => void) | undefined;
  ended = false;

  /** `keep` says which events to queue for `next` (a flood's output need not be kept). */
  constructor(
    readonly response: IncomingMessage,
    keep: (event: SseEvent) => boolean = () => true,
  ) {
    response.setEncoding("utf8");
    response.on("data", (chunk: string) => {
      this.buffer += chunk;
      let from = 0;
      for (let at = this.buffer.indexOf("\n\n"); at >= 0; at = this.buffer.indexOf("\n\n", from)) {
        const event = parseEvent(this.buffer.slice(from, at));
        if (keep(event)) this.events.push(event);
        from = at + 2;
      }
      this.buffer = this.buffer.slice(from);
      this.wake();
    });
    response.on("end", () => {
      this.ended = true;
      this.wake();
    });
    response.on("error", () => {
      this.ended = true;
      this.wake();
    });
  }

  get status(): number {
    return this.response.statusCode ?? 0;
  }

  get headers(): IncomingHttpHeaders {
    return this.response.headers;
  }

  /** The next event that is not a comment, or undefined at the end of the stream. */
  async next(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<SseEvent | undefined> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const event = this.events.shift();
      if (event && event.comment === undefined) return event;
      if (event) continue;
      if (this.ended) return undefined;
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no SSE event within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Every remaining event, until the stream ends. */
  async rest(timeoutMs = DEFAULT_TIMEOUT_MS): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for (let event = await this.next(timeoutMs); event; event = await this.next(timeoutMs)) events.push(event);
    return events;
  }

  /** Stops reading without going away: the server's writes back up. */
  pause(): void {
    this.response.pause();
  }

  resume(): void {
    this.response.resume();
  }

  /** Stops reading: the client goes away. */
  destroy(): void {
    this.response.destroy();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}

function parseEvent(block: string): SseEvent {
  const data: string[] = [];
  const event: SseEvent = { raw: "" };
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) event.comment = line.slice(1).trim();
    else if (line.startsWith("data: ")) data.push(line.slice(6));
    else if (line.startsWith("event: ")) event.event = line.slice(7);
    else if (line.startsWith("id: ")) event.id = line.slice(4);
    else if (line !== "") throw new Error(`not an SSE line: ${JSON.stringify(line)}`);
  }
  if (data.length > 0) {
    event.raw = data.join("\n");
    event.data = JSON.parse(event.raw);
  }
  return event;
}

let requests = 0;
let calls = 0;

export class HttpServer {
  readonly child: ChildProcessWithoutNullStreams;
  start!: StartLine;
  token: string | undefined;
  private err = "";
  private readonly started: Promise<StartLine>;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Connections are not reused, so that every request is on a socket of its own. */
  private readonly agent = new Agent({ keepAlive: false });

  constructor(args: string[], env: NodeJS.ProcessEnv = {}) {
    this.child = startCli(["serve", "--http", ...args], { env });
    this.child.stdin.end();
    this.child.stderr.setEncoding("utf8");
    this.child.stderr.on("data", (chunk: string) => {
      this.err = (this.err + chunk).slice(-16384);
    });
    this.exited = new Promise((resolve) => this.child.once("close", (code, signal) => resolve({ code, signal })));
    this.started = new Promise((resolve, reject) => {
      let out = "";
      this.child.stdout.setEncoding("utf8");
      this.child.stdout.on("data", (chunk: string) => {
        out += chunk;
        const nl = out.indexOf("\n");
        if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)) as StartLine);
      });
      this.exited.then(({ code }) => reject(new Error(`serve --http exited (${code}) before listening: ${this.err}`)));
    });
    this.started.catch(() => {});
  }

  get pid(): number {
    return this.child.pid as number;
  }

  get stderr(): string {
    return this.err;
  }

  /** Resolves once stderr (its last 16 KiB) matches `pattern`. */
  async waitForStderr(pattern: RegExp, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(this.err)) {
      const left = until - Date.now();
      if (left <= 0) throw new Error(`stderr never matched ${pattern}: ${this.err}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.child.stderr.once("data", () => {
          clearTimeout(timer);
          setImmediate(resolve);
        });
      });
    }
  }

  get url(): string {
    return this.start.url;
  }

  /** Resolves with the start line once the server listens; reads the token from `tokenFile`. */
  async ready(timeoutMs = STARTUP_TIMEOUT_MS): Promise<StartLine> {
    const timer = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error(`serve --http did not start: ${this.err}`)), timeoutMs).unref(),
    );
    this.start = await Promise.race([this.started, timer]);
    if (this.start.tokenFile) this.token = readFileSync(this.start.tokenFile, "utf8").trim();
    return this.start;
  }

  /** The `host:port` of the start line, as a Host header names it. */
  get host(): string {
    return new URL(this.url).host;
  }

  private open(path: string, options: RequestOptions): Promise<IncomingMessage> {
    const headers: Record<string, string> = {};
    if (!options.noAuth && this.token) headers.Authorization = `Bearer ${this.token}`;
    let payload: string | Buffer | undefined;
    if (options.body !== undefined) {
      payload =
        typeof options.body === "string" || Buffer.isBuffer(options.body) ? options.body : JSON.stringify(options.body);
      if (!Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === "content-type"))
        headers["Content-Type"] = "application/json";
    }
    Object.assign(headers, options.headers);
    requests += 1;
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.url), { method: options.method ?? "GET", headers, agent: this.agent });
      req.setTimeout(options.timeoutMs ?? DEFAULT_TIMEOUT_MS, () =>
        req.destroy(new Error(`no answer to ${options.method ?? "GET"} ${path} (request ${requests})`)),
      );
      req.once("response", resolve);
      req.once("error", reject);
      req.end(payload);
    });
  }

  /** A request answered in full. */
  async fetch(path: string, options: RequestOptions = {}): Promise<HttpAnswer> {
    const response = await this.open(path, options);
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: Wire;
    try {
      body = text === "" ? undefined : JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: response.statusCode ?? 0, headers: response.headers, text, body };
  }

  /** A request whose answer is read as SSE (whatever its status: check `status` first). */
  async stream(path: string, options: RequestOptions = {}, keep?: (event: SseEvent) => boolean): Promise<SseReader> {
    return new SseReader(await this.open(path, options), keep);
  }

  /** A JSON-RPC call on /a2a/jsonrpc; resolves with the JSON-RPC response. */
  async rpc(method: string, params: unknown, headers: Record<string, string> = {}): Promise<Wire> {
    calls += 1;
    const answer = await this.fetch("/a2a/jsonrpc", {
      method: "POST",
      headers,
      body: { jsonrpc: "2.0", id: `r${calls}`, method, params },
    });
    assert.equal(answer.status, 200, answer.text);
    assert.match(String(answer.headers["content-type"]), /^application\/json/);
    return answer.body;
  }

  /** The result of a JSON-RPC call that must succeed. */
  async call(method: string, params: unknown, headers: Record<string, string> = {}): Promise<Wire> {
    const response = await this.rpc(method, params, headers);
    assert.equal(response.error, undefined, `${method}: ${JSON.stringify(response.error)}`);
    return response.result;
  }

  /** SIGTERM, then the exit and how long it took; SIGKILL if it has not exited within `timeoutMs`. */
  async close(timeoutMs = 8000): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
    const t0 = Date.now();
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), timeoutMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return { ...exit, ms: Date.now() - t0 };
  }
}

/** Starts `serve --http --port 0` on the fixture workspace (or the `--workspace` in `args`) and waits for it. */
export async function startHttp(args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServer> {
  const workspace = args.includes("--workspace") ? [] : ["--workspace", FIXTURES];
  const server = new HttpServer(["--port", "0", ...workspace, ...args], env);
  await server.ready();
  return server;
}

/**
 * Asserts an error answer: HTTP status `http` and a google.rpc.Status body `{ error: { code, status, message,
 * details } }`; returns the ErrorInfo detail, when there is one.
 */
export function assertStatus(answer: HttpAnswer, http: number, status: string): Wire {
  assert.equal(answer.status, http, answer.text);
  assert.match(String(answer.headers["content-type"]), /^application\/json/);
  const { error } = answer.body as { error: { code: number; status: string; message: string; details: Wire[] } };
  assert.equal(error.code, http, answer.text);
  assert.equal(error.status, status, answer.text);
  assert.equal(typeof error.message, "string");
  assert.ok(Array.isArray(error.details));
  return error.details.find((detail) => detail["@type"] === "type.googleapis.com/google.rpc.ErrorInfo");
}

// ---- 1.0 requests ---------------------------------------------------------------------------------------

export { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";

/** A 1.0 SendMessageRequest: the texts as parts, optionally an envelope and configuration. */
export function send10(
  texts: string | string[],
  options: {
    envelope?: Record<string, unknown>;
    configuration?: Record<string, unknown>;
    contextId?: string;
    taskId?: string;
  } = {},
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    messageId: randomUUID(),
    role: "ROLE_USER",
    parts: [texts].flat().map((text) => ({ text })),
  };
  if (options.contextId) message.contextId = options.contextId;
  if (options.taskId) message.taskId = options.taskId;
  if (options.envelope)
    message.metadata = {
      "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1": {
        adapter: "sandbox-agent-runner",
        mode: "plan",
        command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/req.json"],
        timeout_seconds: 30,
        ...options.envelope,
      },
    };
  return { message, ...(options.configuration ? { configuration: options.configuration } : {}) };
}

/** A 1.0 answer to an open prompt (CONTRACT section 4). */
export function answer10(task: { id: string; contextId: string }, promptId: string, payload: unknown): Wire {
  const text = typeof payload === "object" && payload !== null && "text" in payload ? String(payload.text) : "";
  return {
    message: {
      messageId: randomUUID(),
      role: "ROLE_USER",
      taskId: task.id,
      contextId: task.contextId,
      parts: [{ text }],
      metadata: { hitl_response_for: { prompt_id: promptId, payload } },
    },
  };
}
