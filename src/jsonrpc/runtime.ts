// What every `serve` binding stands on: the task store (--state-dir), the dispatcher, the one A2A service and the
// JSON-RPC method table (CONTRACT 5.5, 7). The bindings add only their transport.
import { resolve } from "node:path";
import { A2aService } from "../a2a/service.js";
import { DEFAULT_OUTPUT_LIMIT, Dispatcher } from "../core/dispatcher.js";
import type { TaskStore } from "../core/store.js";
import { MemoryStore } from "../store/memory.js";
import { openStateStore } from "../store/open.js";
import { createMethods } from "./methods.js";

export interface RuntimeOptions {
  workspace: string;
  instance?: string;
  maxConcurrent: number;
  stateDir?: string;
  settleMs?: number;
  maxOutputBytes?: number;
  version: string;
}

export interface Runtime {
  dispatcher: Dispatcher;
  service: A2aService;
  methods: ReturnType<typeof createMethods>;
  /** Lets go of the store (its last writes, its lock). */
  close(): void;
}

/** The runtime, or the reason it can't start (a --state-dir that can't be used, or that another runtime holds). */
export async function createRuntime(
  options: RuntimeOptions,
  log: (line: string) => void,
): Promise<Runtime | { error: string; exitCode: number }> {
  const outputLimit = options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT;
  let store: TaskStore = new MemoryStore();
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
    store,
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
    onListenerError: (error) => log(`internal error while sending an event: ${(error as Error)?.stack ?? error}`),
  });
  const service = new A2aService(dispatcher);
  const methods = createMethods({ service, version: options.version, log });
  return { dispatcher, service, methods, close: () => store.close?.() };
}
