// Every way a task ends, and its words, in one place: the truthful-state rules of CONTRACT section 3.3.
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

const notRun = { exitCode: null, signal: null };

function infrastructure(text: string): Outcome {
  return { state: "failed", failKind: "infrastructure", reason: "spawn_failed", ...notRun, text };
}

/** Ends that are not a command's exit. */
export const ENDS = {
  canceledBeforeStart: (): Outcome => ({
    state: "canceled",
    reason: "canceled",
    ...notRun,
    text: "canceled before it started",
  }),
  shutdown: (): Outcome => ({
    state: "canceled",
    reason: "shutdown",
    ...notRun,
    text: "canceled: the runtime shut down",
  }),
  inputClosed: (exit: CommandExit): Outcome => ({
    state: "canceled",
    reason: "input_closed",
    exitCode: exit.exitCode,
    signal: exit.signal,
    text: "canceled: the input ended while it waited for an answer, so none can come",
  }),
  echoed: (): Outcome => ({
    state: "completed",
    reason: "exit",
    exitCode: 0,
    signal: null,
    text: "completed: echoed the message",
  }),
  workspaceChanged: (detail: string) =>
    infrastructure(`failed: the workspace changed while the task waited: ${detail}`),
  missingWorkingDir: (path: string) => infrastructure(`failed: the working directory ${path} does not exist`),
  missingRunner: (path: string) => infrastructure(`failed: no runner at ${path}`),
  spawnFailed: (detail: string) => infrastructure(`failed: could not start the runner: ${detail}`),
  restarted: (): Outcome => ({
    state: "failed",
    failKind: "infrastructure",
    reason: "runtime_restarted",
    ...notRun,
    text: "failed: the runtime restarted before the command ended",
  }),
} as const;

export function outcomeOf(exit: CommandExit, timeoutSeconds: number): Outcome {
  const outcome = endOf(exit, timeoutSeconds);
  // Said, never silent (CONTRACT 3.3): what a process no guard finds wrote on after the command exited is not kept.
  if (exit.heldOpen)
    outcome.text += `; ${exit.heldOpen.join(" and ")} still held open by a process no guard finds after the command exited: what it wrote after that is not kept`;
  return outcome;
}

function endOf(exit: CommandExit, timeoutSeconds: number): Outcome {
  const ran = { exitCode: exit.exitCode, signal: exit.signal };
  if (exit.spawnError) return ENDS.spawnFailed(exit.spawnError.message);
  if (exit.stoppedBy === "cancel") return { state: "canceled", reason: "canceled", ...ran, text: "canceled" };
  /** The command's own failure (its exit, its time, a signal): an application failure. */
  const failed = (reason: EndReason, text: string): Outcome => ({
    state: "failed",
    failKind: "application",
    reason,
    ...ran,
    text,
  });
  if (exit.stoppedBy === "timeout") return failed("timeout", `failed: timed out after ${timeoutSeconds} s`);
  if (exit.exitCode === 0)
    return { state: "completed", reason: "exit", ...ran, text: "completed: the command exited with code 0" };
  if (exit.exitCode !== null) return failed("exit", `failed: the command exited with code ${exit.exitCode}`);
  // Death by a signal the tool did not send.
  return failed("signal", `failed: the command was killed by ${exit.signal}`);
}
