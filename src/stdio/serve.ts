// `serve --stdio`: wiring and shutdown only. The transport frames bytes, the connection answers frames, the methods
// speak both A2A families over the one service (docs/architecture.md).
import { resolve } from "node:path";
import { EXIT } from "../exit-codes.js";
import type { Io } from "../io/io.js";
import { createRuntime } from "../jsonrpc/runtime.js";
import { openStdioBinding } from "./binding.js";

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

export async function serveStdio(options: ServeOptions, io: Io): Promise<number> {
  const log = (line: string) => io.stderr.write(`adapter-command serve: ${line}\n`);
  const runtime = await createRuntime(options, log);
  if ("error" in runtime) {
    log(runtime.error);
    return runtime.exitCode;
  }
  const { dispatcher, service } = runtime;
  let stop!: (why: string | undefined) => void;
  const stopped = new Promise<string | undefined>((resolve) => (stop = resolve));
  const { transport, connection } = openStdioBinding({
    input: io.stdin,
    output: io.stdout,
    service,
    version: options.version,
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    log,
    onClose: (why) => stop(why),
  });

  // A first signal shuts down cleanly; another one while that runs kills every command's group at once.
  let signalled = false;
  const onSignal = () => {
    if (signalled) dispatcher.killAll();
    signalled = true;
    stop(undefined);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  log(`containment: ${dispatcher.containmentKind}`);
  log(`serving A2A JSON-RPC on stdio (instance ${dispatcher.instanceId}, workspace ${resolve(options.workspace)})`);

  const why = await stopped;
  if (why) log(`${why}; shutting down`);
  transport.stopReading();
  const limit = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_LIMIT_MS).unref());
  await Promise.race([
    (async () => {
      await dispatcher.shutdown();
      await connection.settled();
      // The streams' last events (the final status) are queued once their tasks have ended.
      await new Promise((resolve) => setImmediate(resolve));
      await transport.drained();
    })(),
    limit,
  ]);
  connection.closeStreams();
  dispatcher.killAll();
  runtime.close();
  process.off("SIGTERM", onSignal);
  process.off("SIGINT", onSignal);
  io.stdin.destroy();
  return EXIT.ok;
}
