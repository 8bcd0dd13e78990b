// `conformance --self`: this tool's own `serve --http` as the runtime is configured (`--require-extensions`, every
// binding, gRPC included), on a workspace written by `init`; restarted on the same ports for AC-4. Every process
// it starts is stopped by `stop()` (SIGTERM, then SIGKILL), also when the suite is interrupted.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";

const BIN = fileURLToPath(new URL("../../bin/adapter-command.js", import.meta.url));
const START_LIMIT_MS = 30_000;
const STOP_LIMIT_MS = 10_000;
const KEPT_STDERR = 64 * 1024;

export interface ServeSetup {
  workspace: string;
  tokenFile: string;
  /** More `serve` options (`--state-dir DIR`, `--idempotency-ttl-seconds N`). */
  extra: string[];
}

interface Started {
  child: ChildProcess;
  url: string;
  grpcPort: number;
}

/** Processes started and not yet known to have exited: stopped on an interrupt. */
const running = new Set<ChildProcess>();

export function killAll(): void {
  for (const child of running) child.kill("SIGKILL");
}

async function start(setup: ServeSetup, port: number, grpcPort: number): Promise<Started> {
  const args = [
    BIN,
    "serve",
    "--http",
    "--quiet",
    "--require-extensions",
    "--port",
    String(port),
    "--grpc-port",
    String(grpcPort),
    "--workspace",
    setup.workspace,
    "--token-file",
    setup.tokenFile,
    ...setup.extra,
  ];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let stderr = "";
  child.stderr?.setEncoding("utf8").on("data", (text: string) => {
    stderr = (stderr + text).slice(-KEPT_STDERR);
  });
  let stdout = "";
  const line = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`serve did not start within ${START_LIMIT_MS} ms`)),
      START_LIMIT_MS,
    );
    child.stdout?.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
      if (stdout.includes("\n")) {
        clearTimeout(timer);
        resolve(stdout.slice(0, stdout.indexOf("\n")));
      } else if (stdout.length > KEPT_STDERR) reject(new Error("serve printed no start line"));
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${stderr.trim()}`));
    });
  });
  try {
    const started = JSON.parse(await line) as { url: string; grpc?: string };
    const grpc = Number(started.grpc?.split(":").at(-1));
    return { child, url: started.url, grpcPort: grpc };
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_LIMIT_MS);
  await exited;
  clearTimeout(timer);
}

/** One `serve --http` set-up: its URL, a restart on the same ports, and its stop. */
export class SelfServer {
  private constructor(
    private readonly setup: ServeSetup,
    private current: Started,
  ) {}

  static async start(setup: ServeSetup): Promise<SelfServer> {
    return new SelfServer(setup, await start(setup, 0, 0));
  }

  get url(): string {
    return this.current.url;
  }

  async restart(): Promise<void> {
    await stopChild(this.current.child);
    this.current = await start(this.setup, Number(new URL(this.current.url).port), this.current.grpcPort);
  }

  stop(): Promise<void> {
    return stopChild(this.current.child);
  }
}
