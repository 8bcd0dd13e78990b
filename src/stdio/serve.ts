// `serve --stdio`: wiring and shutdown only. The serve root (src/serve/serve-root.ts) holds the one operations
// table and its JSON-RPC methods; the transport frames bytes, the connection answers frames (docs/architecture.md).
import { resolve } from "node:path";
import type { Dispatcher } from "../core/task/dispatcher.js";
import { EXIT } from "../exit-codes.js";
import type { Io } from "../io/io.js";
import { createServeRoot, type ServeRootOptions } from "../serve/serve-root.js";
import { openStdioBinding } from "./binding.js";
import type { StdioConnection } from "./connection.js";
import type { StdioTransport } from "./transport.js";

/** The serve root's options less the HTTP ones: the binding is stdio. */
export type ServeOptions = Omit<ServeRootOptions, "binding" | "maxBodyBytes" | "grpcPort">;

// With the 1 s the binary allows for open handles after that, the bridge exits within the 5 s of CONTRACT 5.5.
const SHUTDOWN_LIMIT_MS = 3500;

export async function serveStdio(options: ServeOptions, io: Io): Promise<number> {
  const log = (line: string) => io.stderr.write(`adapter-command serve: ${line}\n`);
  const root = await createServeRoot({ ...options, binding: "stdio" }, log);
  if ("error" in root) {
    log(root.error);
    return root.exitCode;
  }
  const { dispatcher } = root;
  const closeRoot = () => root.close();
  // Two ways to stop: the end of stdin (finish what runs, CONTRACT 5.5), or at once (a signal, stdout gone, a read
  // error), which also cuts the first short.
  let inputEnded!: () => void;
  const ended = new Promise<"ended">((resolve) => (inputEnded = () => resolve("ended")));
  let stopNow!: (why: string | undefined) => void;
  const stopped = new Promise<{ why: string | undefined }>((resolve) => (stopNow = (why) => resolve({ why })));
  const { transport, connection } = openStdioBinding({
    input: io.stdin,
    output: io.stdout,
    methods: root.methods,
    dispatcher,
    maxAnswerBytes: root.maxAnswerBytes,
    ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
    log,
    onClose: (why) => (why === undefined ? inputEnded() : stopNow(why)),
  });

  // A first signal shuts down cleanly; another one while that runs kills every command's group at once.
  let signalled = false;
  const onSignal = () => {
    if (signalled) dispatcher.killAll();
    signalled = true;
    stopNow(undefined);
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
  log(`containment: ${dispatcher.containmentKind}`);
  log(`serving A2A JSON-RPC on stdio (instance ${dispatcher.instanceId}, workspace ${resolve(options.workspace)})`);

  const first = await Promise.race([ended, stopped]);
  if (first === "ended") {
    log("end of input: no more requests are read; what runs goes on to its end, then the bridge exits");
    const finished = await Promise.race([finishAfterInput(transport, connection, dispatcher), stopped]);
    if (finished === "finished") {
      // The ended tasks' push deliveries get the shutdown budget too; root.close() drops and counts the rest.
      await Promise.race([
        root.push.idle(),
        new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_LIMIT_MS).unref()),
      ]);
      return close();
    }
  }
  const { why } = await stopped;
  if (why) log(`${why}; shutting down`);
  transport.stopReading();
  const limit = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_LIMIT_MS).unref());
  await Promise.race([
    (async () => {
      await dispatcher.shutdown();
      await connection.settled();
      // Push deliveries of the tasks' last events go out within the same budget; root.close() drops the rest.
      await root.push.idle();
      await settleStreams(transport);
    })(),
    limit,
  ]);
  return close();

  function close(): number {
    connection.closeStreams();
    dispatcher.killAll();
    closeRoot();
    process.off("SIGTERM", onSignal);
    process.off("SIGINT", onSignal);
    io.stdin.destroy();
    return EXIT.ok;
  }
}

/** The streams' last events (the final status) are queued once their tasks have ended; then they are written. */
async function settleStreams(transport: StdioTransport): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  await transport.drained();
}

/**
 * After the end of stdin (CONTRACT 5.5): the requests read before it are answered, a task that waits for an answer
 * is canceled (input_closed), the others run to their end (their deadlines hold), and every answer and stream
 * event is written.
 */
async function finishAfterInput(
  transport: StdioTransport,
  connection: StdioConnection,
  dispatcher: Dispatcher,
): Promise<"finished"> {
  await transport.delivered();
  await dispatcher.closeInput();
  await connection.settled();
  // A request answered meanwhile may have started a task: wait for it too.
  await dispatcher.closeInput();
  await settleStreams(transport);
  return "finished";
}
