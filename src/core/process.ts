// The only place that spawns: one command in its own process group, a deadline, kill escalation, raw chunks.
import type { ChildProcess } from "node:child_process";
import { x } from "tinyexec";
import type { StreamName } from "./output-log.js";

export interface CommandSpec {
  executable: string;
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** A stdin pipe for text-line input; otherwise the child reads EOF at once. */
  stdin: boolean;
  timeoutMs: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
}

export interface CommandExit {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Why the tool signalled the group, if it did. */
  stoppedBy: "timeout" | "cancel" | null;
  spawnError?: NodeJS.ErrnoException;
}

export interface CommandHandlers {
  onChunk(stream: StreamName, chunk: Buffer): void;
  onStreamEnd(stream: StreamName): void;
}

/** After the leader exits, how long its streams may stay open (a grandchild holding them is killed first). */
const CLOSE_WAIT_MS = 2000;

export class RunningCommand {
  readonly pid: number | undefined;
  readonly done: Promise<CommandExit>;
  private readonly child: ChildProcess;
  private stoppedBy: CommandExit["stoppedBy"] = null;
  private killTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private exited = false;

  constructor(
    private readonly spec: CommandSpec,
    handlers: CommandHandlers,
  ) {
    const result = x(spec.executable, [...spec.args], {
      nodePath: false, // PATH stays as the user has it
      throwOnError: false,
      nodeOptions: {
        cwd: spec.cwd,
        env: spec.env,
        detached: true, // its own process group, so the whole group can be signalled
        stdio: [spec.stdin ? "pipe" : "ignore", "pipe", "pipe"],
        windowsHide: true,
      },
    });
    const child = result.process;
    if (!child) throw new Error("tinyexec did not start a process");
    this.child = child;
    this.pid = child.pid;
    child.stdin?.on("error", () => {}); // a closed stdin surfaces as a failed write, never as a crash

    this.done = new Promise<CommandExit>((resolve) => {
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let open = 2;
      let closeWait: NodeJS.Timeout | undefined;
      const finish = (spawnError?: NodeJS.ErrnoException) => {
        clearTimeout(this.deadlineTimer);
        clearTimeout(this.killTimer);
        clearTimeout(closeWait);
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          stoppedBy: this.stoppedBy,
          ...(spawnError ? { spawnError } : {}),
        });
      };
      const streamClosed = () => {
        open -= 1;
        if (open === 0 && exit) finish();
      };
      for (const name of ["stdout", "stderr"] as const) {
        const stream = child[name];
        if (!stream) {
          open -= 1;
          continue;
        }
        stream.on("data", (chunk: Buffer) => handlers.onChunk(name, chunk));
        stream.once("close", () => {
          handlers.onStreamEnd(name);
          streamClosed();
        });
      }
      child.once("error", (error: NodeJS.ErrnoException) => {
        if (this.pid === undefined) {
          this.exited = true;
          for (const name of ["stdout", "stderr"] as const) child[name]?.destroy();
          finish(error);
        }
      });
      child.once("exit", (code, signal) => {
        this.exited = true;
        exit = { code, signal };
        // The leader is gone: nothing of its group may outlive the task.
        this.signalGroup("SIGKILL");
        if (open === 0) finish();
        else
          closeWait = setTimeout(() => {
            for (const name of ["stdout", "stderr"] as const) child[name]?.destroy();
          }, CLOSE_WAIT_MS);
      });
    });

    if (this.pid !== undefined) {
      this.deadlineTimer = setTimeout(() => this.stop("timeout"), spec.timeoutMs);
    }
  }

  /**
   * SIGTERM to the group now, SIGKILL to the group after the grace period (unless the leader's exit did it first).
   * False when it comes too late to matter: the command has exited, or is already being stopped for another reason.
   */
  stop(why: "timeout" | "cancel"): boolean {
    if (this.stoppedBy) return this.stoppedBy === why;
    if (this.exited) return false;
    this.stoppedBy = why;
    clearTimeout(this.deadlineTimer);
    this.signalGroup("SIGTERM");
    this.killTimer = setTimeout(() => this.signalGroup("SIGKILL"), this.spec.killGraceMs);
    return true;
  }

  /** Kills the group at once (shutdown paths). */
  kill(): void {
    this.stoppedBy ??= "cancel";
    this.signalGroup("SIGKILL");
  }

  get running(): boolean {
    return !this.exited;
  }

  /** Why it is being stopped, if it is: it may still run for the grace period, but it has no future. */
  get stopReason(): CommandExit["stoppedBy"] {
    return this.stoppedBy;
  }

  get acceptsInput(): boolean {
    const stdin = this.child.stdin;
    return !this.exited && !!stdin && stdin.writable && !stdin.destroyed;
  }

  /** Writes to the command's stdin; resolves once the bytes are handed to the pipe. */
  write(text: string): Promise<void> {
    const stdin = this.child.stdin;
    return new Promise((resolve, reject) => {
      if (!stdin || !this.acceptsInput) {
        reject(new Error("the command's stdin is closed"));
        return;
      }
      stdin.write(text, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Closes the command's stdin: it reads EOF, as at the end of a piped file. */
  endInput(): void {
    this.child.stdin?.end();
  }

  pause(): void {
    this.child.stdout?.pause();
    this.child.stderr?.pause();
  }

  resume(): void {
    this.child.stdout?.resume();
    this.child.stderr?.resume();
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  }
}

export function spawnCommand(spec: CommandSpec, handlers: CommandHandlers): RunningCommand {
  return new RunningCommand(spec, handlers);
}
