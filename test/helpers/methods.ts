// The operations table as JSON-RPC methods (src/jsonrpc/methods.ts) in-process, without a binding: over a fresh in-memory
// dispatcher, with a call that answers one request as a binding would, and an echo task that has ended.

import { analyzeInput } from "../../src/a2a/input-file.js";
import { A2aService } from "../../src/a2a/service.js";
import { Dispatcher, type DispatcherOptions, type TaskView } from "../../src/core/task/dispatcher.js";
import { createMethods } from "../../src/jsonrpc/methods.js";
import { createOperations } from "../../src/operations/table.js";
import { MemoryStore } from "../../src/store/memory.js";

/** A dispatcher on the current directory with an in-memory store; `options` override the rest. */
export const memoryDispatcher = (options: Partial<DispatcherOptions> = {}) =>
  new Dispatcher({ store: new MemoryStore(), workspace: process.cwd(), ...options });

/** The method table over `dispatcher`; `call` sends one request with a new id and resolves with its response. */
export function methodsOver(dispatcher: Dispatcher) {
  const server = createMethods(createOperations({ service: new A2aService(dispatcher), version: "0", log: () => {} }));
  let id = 0;
  const call = (method: string, params?: unknown) =>
    server.receive({ jsonrpc: "2.0", id: ++id, method, ...(params === undefined ? {} : { params }) }, {});
  return { server, call };
}

/** An echo task (a message without an envelope: it echoes "hi") that has ended. */
export async function endedEcho(dispatcher: Dispatcher): Promise<TaskView> {
  const task = dispatcher.submit({
    analysis: analyzeInput({ role: "user", parts: [{ kind: "text", text: "hi" }] }),
    hitlActivated: false,
  });
  await dispatcher.settled(task.id);
  return task;
}
