// The task record's states and the one table that says which moves are legal.
export const TASK_STATES = ["submitted", "working", "input-required", "completed", "failed", "canceled"] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const FAIL_KINDS = ["application", "infrastructure"] as const;
export type FailKind = (typeof FAIL_KINDS)[number];
export const END_REASONS = [
  "timeout",
  "canceled",
  "runtime_restarted",
  "exit",
  "signal",
  "spawn_failed",
  "shutdown",
] as const;
export type EndReason = (typeof END_REASONS)[number];

const TRANSITIONS: Record<TaskState, readonly TaskState[]> = {
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
