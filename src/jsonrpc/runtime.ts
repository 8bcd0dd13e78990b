// What every `serve` binding stands on: the task store (--state-dir), the dispatcher, the one A2A service and the
// JSON-RPC method table (CONTRACT 5.5, 7). The bindings add only their transport.
import { resolve } from "node:path";
import type { OperatorSetup } from "../a2a/card.js";
import { A2aService } from "../a2a/service.js";
import { DEFAULT_OUTPUT_LIMIT, Dispatcher } from "../core/dispatcher.js";
import { DEFAULT_SETTLE_MS } from "../core/prompt.js";
import type { TaskStore } from "../core/store.js";
import { DEFAULT_MAX_LINE_BYTES } from "../io/line-splitter.js";
import { openStateStore } from "../store/open.js";
import { createMethods } from "./methods.js";

export interface RuntimeOptions {
  workspace: string;
  instance?: string;
  maxConcurrent: number;
  stateDir?: string;
  settleMs?: number;
  maxOutputBytes?: number;
  /** stdio: the longest request line. */
  maxLineBytes?: number;
  /** HTTP: the largest request body. */
  maxBodyBytes?: number;
  /** Which binding serves: its limit is the one the extended card names. */
  binding?: "stdio" | "http";
  version: string;
}

export interface Runtime {
  dispatcher: Dispatcher;
  service: A2aService;
  methods: ReturnType<typeof createMethods>;
  /** What the extended card tells an authenticated caller (CONTRACT 8.2). */
  operator: Omit<OperatorSetup, "containment">;
  /** Lets go of the store (its last writes, its lock). */
  close(): void;
}

/** The runtime, or the reason it can't start (a --state-dir that can't be used, or that another runtime holds). */
export async function createRuntime(
  options: RuntimeOptions,
  log: (line: string) => void,
): Promise<Runtime | { error: string; exitCode: number }> {
  const outputLimit = options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT;
  let store: TaskStore | undefined;
  if (options.stateDir) {
    // The SQLite store is loaded only here, so commands without --state-dir start as fast as before.
    const opened = await openStateStore(options.stateDir, { outputLimit, log });
    if (!opened.ok) return { error: opened.message, exitCode: opened.exitCode };
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
  const service = new A2aService(dispatcher);
  const http = options.binding === "http";
  const operator = {
    workspace: resolve(options.workspace),
    limits: {
      max_concurrent: options.maxConcurrent,
      max_output_bytes: outputLimit,
      settle_ms: options.settleMs ?? DEFAULT_SETTLE_MS,
      max_line_bytes: http ? null : (options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES),
      max_body_bytes: http ? (options.maxBodyBytes ?? null) : null,
    },
    state_dir: options.stateDir !== undefined,
  };
  const methods = createMethods({ service, version: options.version, log, operator });
  return { dispatcher, service, methods, operator, close: () => store?.close?.() };
}
