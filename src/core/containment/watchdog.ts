// The tool's side of the watchdog (watchdog-main.ts; docs/security.md "The watchdog"): one small process per tool,
// started with the first task, told of each task before its spawn, and ended when no task has run for a while.
// Should it die, the next message starts a new one, which is told of every task still watched.
import type { ChildProcess } from "node:child_process";
import type { Socket } from "node:net";
import { fileURLToPath } from "node:url";
import { x } from "tinyexec";
import type { TaskTrace } from "./trace.js";

export type WatchdogMessage =
  | { watch: string; trace: TaskTrace; deadline: number; grace: number }
  | { started: string; pid: number; pidStart: string | undefined }
  | { done: string };

/** How long an idle watchdog is kept before it is ended (a new task starts another). */
const IDLE_MS = 10_000;
/** A watchdog that died is started again at most this often. */
const RESPAWN_MS = 1000;

/** The watchdog's entry: the compiled .js next to this module, or under tsx (tests from src/) the .ts with tsx. */
function entryArgs(): string[] {
  const here = import.meta.url;
  if (!here.endsWith(".ts")) return [fileURLToPath(new URL("./watchdog-main.js", here))];
  return ["--import", import.meta.resolve("tsx"), fileURLToPath(new URL("./watchdog-main.ts", here))];
}

export class Watchdog {
  private child: ChildProcess | undefined;
  /** Each live task's messages so far, to tell a new watchdog. */
  private readonly watched = new Map<string, string[]>();
  private idleTimer: NodeJS.Timeout | undefined;
  private respawnTimer: NodeJS.Timeout | undefined;
  private lastSpawn = 0;

  /** `onStart` is told each new watchdog's pid (the cgroup guard keeps it out of the tasks' cgroups). */
  constructor(
    private readonly onStart: (pid: number) => void = () => {},
    private readonly args: () => string[] = entryArgs,
  ) {}

  /** Starts the watchdog now if none runs, so that it is not started in the middle of a task's spawn. */
  ensure(): void {
    if (!this.child) this.start();
  }

  /** Before the spawn: the task's trace so far (its guard) and its deadline (ms since the epoch). */
  watch(id: string, trace: TaskTrace, deadline: number, grace: number): void {
    clearTimeout(this.idleTimer);
    this.watched.set(id, []);
    this.send(id, { watch: id, trace, deadline, grace });
  }

  started(id: string, pid: number, pidStart: string | undefined): void {
    this.send(id, { started: id, pid, pidStart });
  }

  /** Nothing of the task is left: the watchdog forgets it. */
  done(id: string): void {
    if (!this.watched.delete(id)) return;
    this.child?.stdin?.write(`${JSON.stringify({ done: id })}\n`);
    if (this.watched.size === 0) {
      clearTimeout(this.idleTimer);
      this.idleTimer = setTimeout(() => this.retire(), IDLE_MS).unref();
    }
  }

  /** The pid of the running watchdog, if one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  private send(id: string, message: WatchdogMessage): void {
    const line = `${JSON.stringify(message)}\n`;
    this.watched.get(id)?.push(line);
    if (this.child) this.child.stdin?.write(line);
    else this.start();
  }

  /** Starts a watchdog and tells it every live task. */
  private start(): void {
    clearTimeout(this.respawnTimer);
    this.lastSpawn = Date.now();
    let child: ChildProcess | undefined;
    try {
      child = x(process.execPath, this.args(), {
        nodePath: false,
        throwOnError: false,
        nodeOptions: { detached: true, stdio: ["pipe", "ignore", "ignore"], windowsHide: true },
      }).process;
    } catch {
      child = undefined;
    }
    if (!child?.stdin) return; // the tool still contains its tasks while it lives; only the backstop is missing
    this.child = child;
    if (child.pid !== undefined) this.onStart(child.pid);
    child.stdin.on("error", () => {}); // a watchdog that died: its exit below starts another
    child.once("exit", () => {
      if (this.child === child) this.child = undefined;
      if (this.watched.size > 0) this.scheduleRestart();
    });
    child.unref();
    (child.stdin as Socket).unref();
    for (const lines of this.watched.values()) for (const line of lines) child.stdin.write(line);
  }

  private scheduleRestart(): void {
    clearTimeout(this.respawnTimer);
    const wait = Math.max(0, this.lastSpawn + RESPAWN_MS - Date.now());
    this.respawnTimer = setTimeout(() => {
      if (!this.child && this.watched.size > 0) this.start();
    }, wait);
    this.respawnTimer.unref();
  }

  /** Ends an idle watchdog: its stdin closes with nothing watched, and it exits. */
  private retire(): void {
    if (this.watched.size > 0) return;
    const child = this.child;
    this.child = undefined;
    child?.stdin?.end();
  }
}
