// How a finished command becomes the task's final state: the truthful-state rules of CONTRACT section 3.3.
import type { CommandExit } from "./process.js";
import type { EndReason, FailKind } from "./task.js";

export interface Outcome {
  state: "completed" | "failed" | "canceled";
  reason: EndReason;
  failKind?: FailKind;
  exitCode: number | null;
  signal: string | null;
  /** What happened, in words. */
  text: string;
}

export function outcomeOf(exit: CommandExit, timeoutSeconds: number): Outcome {
  const ran = { exitCode: exit.exitCode, signal: exit.signal };
  if (exit.spawnError) {
    return {
      state: "failed",
      failKind: "infrastructure",
      reason: "spawn_failed",
      exitCode: null,
      signal: null,
      text: `failed: could not start the runner: ${exit.spawnError.message}`,
    };
  }
  if (exit.stoppedBy === "cancel") return { state: "canceled", reason: "canceled", ...ran, text: "canceled" };
  if (exit.stoppedBy === "timeout") {
    return {
      state: "failed",
      failKind: "application",
      reason: "timeout",
      ...ran,
      text: `failed: timed out after ${timeoutSeconds} s`,
    };
  }
  if (exit.exitCode === 0)
    return { state: "completed", reason: "exit", ...ran, text: "completed: the command exited with code 0" };
  if (exit.exitCode !== null) {
    return {
      state: "failed",
      failKind: "application",
      reason: "exit",
      ...ran,
      text: `failed: the command exited with code ${exit.exitCode}`,
    };
  }
  // Death by a signal the tool did not send.
  return {
    state: "failed",
    failKind: "application",
    reason: "signal",
    ...ran,
    text: `failed: the command was killed by ${exit.signal}`,
  };
}
