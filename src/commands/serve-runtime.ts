// What every `serve` binding stands on: the task store (--state-dir), the dispatcher, the one A2A service and the
// JSON-RPC method table (CONTRACT 5.5, 7). The bindings add only their transport.
import { resolve } from "node:path";
import { A2aService } from "../a2a/service.js";
import { DEFAULT_OUTPUT_LIMIT, Dispatcher } from "../core/dispatcher.js";
import { JournalStore } from "../core/journal.js";
import type { TaskStore } from "../core/store.js";
import { createMethods } from "../jsonrpc/methods.js";

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
}

/**
 * The store of --state-dir, recovered. The one place a store is opened, so another kind of store is swapped in
 * here. Throws with a message naming the problem when the directory can't be used.
 */
export function openStore(stateDir: string, outputLimit: number, log: (line: string) => void): TaskStore {
  const store = new JournalStore(resolve(stateDir), outputLimit);
  const { restored, interrupted } = store.recover(new Date());
  if (restored > 0) log(`restored ${restored} task(s) from ${stateDir}; ${interrupted} had not ended and are failed`);
  store.onWriteError = (error) =>
    log(`cannot write the journal in ${stateDir} (${error.message}); tasks are kept in memory only`);
  return store;
}

/** The runtime, or the reason it can't start (a --state-dir that can't be used). */
export function createRuntime(options: RuntimeOptions, log: (line: string) => void): Runtime | { error: string } {
  const outputLimit = options.maxOutputBytes ?? DEFAULT_OUTPUT_LIMIT;
  let store: TaskStore | undefined;
  if (options.stateDir) {
    try {
      store = openStore(options.stateDir, outputLimit, log);
    } catch (error) {
      return { error: `cannot use --state-dir ${options.stateDir}: ${(error as Error).message}` };
    }
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
  return { dispatcher, service, methods: createMethods({ service, version: options.version, log }) };
}
