// The only place that spawns a runner: one command in its own process group and its guard's confinement, a deadline,
// kill escalation, raw chunks; the watchdog told of each task (CONTRACT 3.2, docs/security.md "Containment").
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { x } from "tinyexec";
import { type Containment, sharedContainment } from "../containment/containment.js";
import { signalGroup } from "../containment/group.js";
import type { Confinement, GuardRecord } from "../containment/guard.js";
import { marksOf } from "../containment/marker.js";
import { OutputDrain, pipeCapacity } from "./output-drain.js";
import type { StreamName } from "./output-log.js";
import { processStartTime } from "./process-identity.js";

export interface CommandSpec {
  executable: string;
  args: readonly string[];
  cwd: string;
  /** Carries AIWG_A2A_TASK_ID and AIWG_A2A_INSTANCE_ID: the marks every descendant inherits. */
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
  /** Streams given up while still open after the exit: a process no guard finds held them (src/core/task/output-drain.ts). */
  heldOpen?: StreamName[];
}

export interface CommandHandlers {
  onChunk(stream: StreamName, chunk: Buffer): void;
  onStreamEnd(stream: StreamName): void;
}

/** After the leader has exited, how long the rest of the task is killed again and again before it is left to the watchdog. */
const CLOSE_WAIT_MS = 2000;
/** How often a cgroup the task ended with is tried again for removal, and for how long. */
const RELEASE_RETRY_MS = 100;
const RELEASE_TRIES = 50;

export class RunningCommand {
  readonly pid: number | undefined;
  /** The runner's start time (/proc), so a later run can tell the pid still names it. */
  readonly pidStart: string | undefined;
  readonly done: Promise<CommandExit>;
  private readonly child: ChildProcess;
  private readonly confinement: Confinement;
  private readonly watchId = randomUUID();
  private stoppedBy: CommandExit["stoppedBy"] = null;
  private killTimer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private exited = false;
  private readonly drain: OutputDrain;
  /** Once the command has exited: looks again at once whether its streams are done. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly spec: CommandSpec,
    handlers: CommandHandlers,
    private readonly containment: Containment = sharedContainment(),
  ) {
    this.drain = new OutputDrain(performance.now() + spec.timeoutMs, 2 * pipeCapacity());
    containment.watchdog?.ensure();
    this.confinement = containment.guard.confine(marksOf(spec.env));
    // The watchdog hears of the task before it exists: a tool killed right after the spawn still leaves it watched.
    containment.watchdog?.watch(
      this.watchId,
      { guards: [this.confinement.record] },
      Date.now() + spec.timeoutMs,
      spec.killGraceMs,
    );
    let child: ChildProcess | undefined;
    try {
      child = this.confinement.spawnInside(
        () =>
          x(spec.executable, [...spec.args], {
            nodePath: false, // PATH stays as the user has it
            throwOnError: false,
            nodeOptions: {
              cwd: spec.cwd,
              env: spec.env,
              detached: true, // its own process group, so the whole group can be signalled
              stdio: [spec.stdin ? "pipe" : "ignore", "pipe", "pipe"],
              windowsHide: true,
            },
          }).process,
      );
      if (!child) throw new Error("tinyexec did not start a process");
    } catch (error) {
      this.forget();
      throw error;
    }
    this.child = child;
    this.pid = child.pid;
    this.pidStart = this.pid === undefined ? undefined : processStartTime(this.pid);
    this.confinement.started(this.pidStart);
    if (this.pid !== undefined) containment.watchdog?.started(this.watchId, this.pid, this.pidStart);
    child.stdin?.on("error", () => {}); // a closed stdin surfaces as a failed write, never as a crash

    this.done = new Promise<CommandExit>((resolve) => {
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let open = 2;
      let settleTimer: NodeJS.Timeout | undefined;
      let finished = false;
      const heldOpen: StreamName[] = [];
      const finish = (spawnError?: NodeJS.ErrnoException) => {
        if (finished) return;
        finished = true;
        clearTimeout(this.deadlineTimer);
        clearTimeout(this.killTimer);
        clearTimeout(settleTimer);
        this.wake = undefined;
        resolve({
          exitCode: exit?.code ?? null,
          signal: exit?.signal ?? null,
          stoppedBy: this.stoppedBy,
          ...(spawnError ? { spawnError } : {}),
          ...(heldOpen.length > 0 ? { heldOpen } : {}),
        });
        this.forget();
      };
      // The runner has exited and the rest of the task was killed. What it wrote before is still in the pipes and is
      // read to the end, however long the reader was starved (docs/security.md "Output after the exit"): the task
      // ends once nothing of it is left and its streams are closed. Only a process no guard finds can still hold a
      // pipe open then; `drain` tells that case and ends the task without it.
      let exitedAt = 0;
      // Once the guard finds nothing, nothing of the task is left to fork: no need to look again.
      let clear = false;
      const settle = () => {
        clearTimeout(settleTimer);
        const left = !clear && this.confinement.alive();
        clear = !left;
        if (!left && open === 0) return finish();
        if (left && performance.now() - exitedAt < CLOSE_WAIT_MS) {
          this.confinement.signal("SIGKILL"); // what forked since the last round
          // Killed processes go within milliseconds: look often at first, then less (each look may scan /proc).
          settleTimer = setTimeout(settle, performance.now() - exitedAt < 100 ? 3 : 25);
          return;
        }
        const wait = this.drain.wait(performance.now());
        if (wait === "cut") {
          for (const name of ["stdout", "stderr"] as const) {
            const stream = child[name];
            if (stream && !stream.destroyed && !stream.readableEnded) heldOpen.push(name);
            stream?.destroy();
          }
          return finish();
        }
        settleTimer = setTimeout(settle, wait);
      };
      const streamClosed = () => {
        open -= 1;
        if (open === 0 && exit) settle();
      };
      for (const name of ["stdout", "stderr"] as const) {
        const stream = child[name];
        if (!stream) {
          open -= 1;
          continue;
        }
        stream.on("data", (chunk: Buffer) => {
          if (exit) this.drain.read(chunk.length, performance.now());
          handlers.onChunk(name, chunk);
        });
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
        clearTimeout(this.deadlineTimer);
        clearTimeout(this.killTimer);
        // The runner's exit decides the state; nothing it started may outlive the task (CONTRACT 3.2).
        this.signalAll("SIGKILL");
        exitedAt = performance.now();
        this.drain.exited(exitedAt);
        this.wake = settle;
        settle();
      });
    });

    if (this.pid !== undefined) {
      this.deadlineTimer = setTimeout(() => this.stop("timeout"), spec.timeoutMs);
    }
  }

  /** The guard's identity of this task, for its record. */
  get guard(): GuardRecord {
    return this.confinement.record;
  }

  /**
   * SIGTERM to the group and the rest of the task now, SIGKILL after the grace period (unless the leader's exit did
   * it first).
   * False when it comes too late to matter: the command has exited, or is already being stopped for another reason.
   */
  stop(why: "timeout" | "cancel"): boolean {
    if (this.stoppedBy) return this.stoppedBy === why;
    if (this.exited) return false;
    this.stoppedBy = why;
    clearTimeout(this.deadlineTimer);
    this.signalAll("SIGTERM");
    this.killTimer = setTimeout(() => this.signalAll("SIGKILL"), this.spec.killGraceMs);
    return true;
  }

  /** Kills the group and the rest of the task at once (shutdown paths). */
  kill(): void {
    this.stoppedBy ??= "cancel";
    this.signalAll("SIGKILL");
    this.drain.hurry();
    this.wake?.();
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
    this.drain.pause();
    this.child.stdout?.pause();
    this.child.stderr?.pause();
  }

  resume(): void {
    this.drain.resume(performance.now());
    this.child.stdout?.resume();
    this.child.stderr?.resume();
  }

  /** The process group, then whatever else the guard finds of the task. */
  private signalAll(signal: NodeJS.Signals): void {
    if (this.pid !== undefined) signalGroup(this.containment.host, this.pid, signal);
    this.confinement.signal(signal);
  }

  /** The task is over: its cgroup goes once empty, and then the watchdog forgets it (until then it still guards it). */
  private forget(triesLeft = RELEASE_TRIES): void {
    if (this.confinement.release() || triesLeft <= 0) {
      this.containment.watchdog?.done(this.watchId);
      return;
    }
    setTimeout(() => this.forget(triesLeft - 1), RELEASE_RETRY_MS).unref();
  }
}

export function spawnCommand(spec: CommandSpec, handlers: CommandHandlers, containment?: Containment): RunningCommand {
  return new RunningCommand(spec, handlers, containment);
}
