// `serve --stdio`: NDJSON JSON-RPC on stdin/stdout in front of the dispatcher, with a clean shutdown.
import { resolve } from "node:path";
import type { JSONRPCResponse } from "json-rpc-2.0";
import { notificationJson } from "../a2a/event-json.js";
import { DEFAULT_OUTPUT_LIMIT, Dispatcher } from "../core/dispatcher.js";
import { isRecord, MAX_NESTING, nestingDepth } from "../core/json-value.js";
import type { TaskStore } from "../core/store.js";
import { FlowControl } from "../io/backpressure.js";
import type { Io } from "../io/io.js";
import { DEFAULT_MAX_LINE_BYTES, type Frame, LineSplitter } from "../io/line-splitter.js";
import { Outbox } from "../io/outbox.js";
import { openStateStore } from "../store/open.js";
import { RPC } from "./errors.js";
import { createMethods, type RequestContext } from "./methods.js";

export interface ServeOptions {
  workspace: string;
  instance?: string;
  maxConcurrent: number;
  stateDir?: string;
  maxLineBytes?: number;
  settleMs?: number;
  maxOutputBytes?: number;
  version: string;
}

// With the 1 s the binary allows for open handles after that, the bridge exits within the 5 s of CONTRACT 5.5.
const SHUTDOWN_LIMIT_MS = 3500;

const isId = (id: unknown) => id === undefined || id === null || typeof id === "string" || typeof id === "number";

function errorResponse(id: unknown, code: number, message: string, data?: unknown): JSONRPCResponse {
  const safeId = typeof id === "string" || typeof id === "number" ? id : null;
  return { jsonrpc: "2.0", id: safeId, error: { code, message, ...(data === undefined ? {} : { data }) } };
}

/** Why a value is not a JSON-RPC request, or undefined when it is one. */
function notARequest(value: unknown): string | undefined {
  if (!isRecord(value)) return "expected a JSON-RPC request object";
  if (value.jsonrpc !== "2.0") return 'expected "jsonrpc": "2.0"';
  if (typeof value.method !== "string") return "expected a string method";
  if (!isId(value.id)) return "expected an id that is a string, a number or null";
  if (value.params !== undefined && typeof value.params !== "object")
    return "expected params to be an object or an array";
  return undefined;
}

export async function serveStdio(options: ServeOptions, io: Io): Promise<number> {
  const log = (line: string) => io.stderr.write(`adapter-command serve: ${line}\n`);
  const outputLimit = options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT;
  let store: TaskStore | undefined;
  if (options.stateDir) {
    const opened = await openStateStore(options.stateDir, { outputLimit, log });
    if (!opened.ok) {
      log(opened.message);
      return opened.exitCode;
    }
    store = opened.store;
  }
  const dispatcher = new Dispatcher({
    workspace: resolve(options.workspace),
    maxConcurrent: options.maxConcurrent,
    outputLimitBytes: outputLimit,
    ...(options.instance ? { instanceId: options.instance } : {}),
    ...(store ? { store } : {}),
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    onListenerError: (error) => log(`internal error while sending an event: ${(error as Error)?.stack ?? error}`),
  });
  // While stdout is full, neither children's output nor new requests are read: nothing piles up in memory.
  const flow = new FlowControl({
    pauseOutput: () => {
      dispatcher.pauseOutput();
      io.stdin.pause();
    },
    resumeOutput: () => {
      outbox.flush();
      if (flow.isFull) return;
      dispatcher.resumeOutput();
      if (!closing) io.stdin.resume();
    },
  });
  const outbox = new Outbox(io.stdout, flow);
  const encode = (message: unknown): string => {
    try {
      return JSON.stringify(message);
    } catch (error) {
      log(`internal error: cannot encode a message: ${(error as Error).message}`);
      const id = isRecord(message) && "id" in message ? message.id : null;
      return JSON.stringify(errorResponse(id, RPC.internal, "Internal error"));
    }
  };
  /** An answer, encoded when its turn to be written comes. */
  const write = (message: unknown) => outbox.push(() => `${encode(message)}\n`);
  const server = createMethods({
    dispatcher,
    version: options.version,
    notify: (event) => outbox.push(`${notificationJson(event)}\n`),
    log,
  });

  let inFlight = 0;
  const settledAll: Array<() => void> = [];
  const track = async (work: Promise<void>) => {
    inFlight += 1;
    try {
      await work;
    } catch (error) {
      log(`internal error: ${(error as Error)?.stack ?? error}`);
    } finally {
      inFlight -= 1;
      if (inFlight === 0) for (const done of settledAll.splice(0)) done();
    }
  };

  const handleOne = async (value: unknown, context: RequestContext): Promise<JSONRPCResponse | null> => {
    const problem = notARequest(value);
    if (problem)
      return errorResponse(isRecord(value) ? value.id : null, RPC.invalidRequest, "Invalid Request", {
        detail: problem,
      });
    return server.receive(value as never, context);
  };

  const handleFrame = async (frame: Frame): Promise<void> => {
    if (frame.kind === "oversized") {
      write(
        errorResponse(null, RPC.invalidRequest, "Invalid Request", {
          detail: `line of ${frame.bytes} bytes is over the limit of ${options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES}; discarded`,
        }),
      );
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.text);
    } catch (error) {
      write(errorResponse(null, RPC.parseError, "Parse error", { detail: (error as Error).message }));
      return;
    }
    if (nestingDepth(value, MAX_NESTING) > MAX_NESTING) {
      const id = isRecord(value) ? value.id : null;
      write(
        errorResponse(id, RPC.invalidRequest, "Invalid Request", {
          detail: `nested deeper than ${MAX_NESTING} levels`,
        }),
      );
      return;
    }
    const context: RequestContext = { after: [] };
    if (Array.isArray(value)) {
      if (value.length === 0) {
        write(errorResponse(null, RPC.invalidRequest, "Invalid Request", { detail: "expected a non-empty batch" }));
        return;
      }
      const responses = (await Promise.all(value.map((item) => handleOne(item, context)))).filter((r) => r !== null);
      if (responses.length > 0) write(responses);
    } else {
      const response = await handleOne(value, context);
      if (response) write(response);
    }
    for (const next of context.after) next();
  };

  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  let closing = false;
  let stop!: () => void;
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  io.stdin.on("data", (chunk: Buffer) => {
    if (closing) return;
    for (const frame of splitter.push(chunk)) void track(handleFrame(frame));
  });
  io.stdin.on("end", () => {
    for (const frame of splitter.end()) void track(handleFrame(frame));
    stop();
  });
  io.stdin.on("error", (error: Error) => {
    log(`cannot read stdin (${error.message}); shutting down`);
    stop();
  });
  io.stdout.on("error", (error: Error) => {
    log(`cannot write stdout (${error.message}); shutting down`);
    stop();
  });
  // A first signal shuts down cleanly; another one while that runs kills every command's group at once.
  let signalled = false;
  const onSignal = () => {
    if (signalled) dispatcher.killAll();
    signalled = true;
    stop();
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  log(`serving A2A JSON-RPC on stdio (instance ${dispatcher.instanceId}, workspace ${resolve(options.workspace)})`);

  await stopped;
  closing = true;
  io.stdin.pause();
  const limit = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_LIMIT_MS).unref());
  await Promise.race([
    (async () => {
      await dispatcher.shutdown();
      if (inFlight > 0) await new Promise<void>((resolve) => settledAll.push(resolve));
      await outbox.drained();
    })(),
    limit,
  ]);
  dispatcher.killAll();
  store?.close?.();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  io.stdin.destroy();
  return 0;
}
