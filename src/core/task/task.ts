// The task record's states and the one table that says which moves are legal.
export const TASK_STATES = ["submitted", "working", "input-required", "completed", "failed", "canceled"] as const;
export type TaskState = (typeof TASK_STATES)[number];

/** Who failed: the command (application) or what runs it (infrastructure, a class orchestrators retry). */
export const FAIL_KINDS = {
  application: "the command failed: it exited non-zero, died by a signal the tool did not send, or hit its deadline",
  infrastructure:
    "the command could not run or finish through no fault of its own: a missing working directory or runner, a spawn error, a restart of the runtime",
} as const;
export type FailKind = keyof typeof FAIL_KINDS;

/** Why a task ended: `metadata[ADAPTER].reason` on the wire. */
export const END_REASONS = {
  exit: "the command exited (its exit code decides completed or failed)",
  signal: "the command was killed by a signal the tool did not send",
  timeout: "the deadline passed: SIGTERM to the process group, SIGKILL 2 s later",
  canceled: "a cancel request (or Ctrl-C on run) stopped it",
  spawn_failed:
    "it could not start: working directory or runner missing, spawn error, workspace changed while it waited",
  shutdown: "the runtime shut down before it started",
  input_closed:
    "serve --stdio: its input ended while the task waited for an answer (or it asked after that), so none can come",
  runtime_restarted:
    "the runtime stopped (crash, kill) before the command ended; found at the next start with --state-dir",
} as const;
export type EndReason = keyof typeof END_REASONS;

export const TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
  submitted: ["working", "failed", "canceled"],
  working: ["input-required", "completed", "failed", "canceled"],
  "input-required": ["working", "completed", "failed", "canceled"],
  completed: [],
  failed: [],
  canceled: [],
};

export function canMove(from: TaskState, to: TaskState): boolean {
  return TRANSITIONS[from].includes(to);
}

export function isTerminal(state: TaskState): boolean {
  return TRANSITIONS[state].length === 0;
}

export class IllegalTransition extends Error {
  constructor(
    readonly from: TaskState,
    readonly to: TaskState,
  ) {
    super(`illegal task transition ${from} → ${to}`);
    this.name = "IllegalTransition";
  }
}

/** Checks a move against the table; the caller applies it. */
export function assertMove(from: TaskState, to: TaskState): void {
  if (!canMove(from, to)) throw new IllegalTransition(from, to);
}
