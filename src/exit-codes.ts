// The tool's exit codes and how an ended task becomes the exit code of `run` (CONTRACT section 1). Beside the
// layers, not in src/commands: every front end and binding exits with them (docs/architecture.md, "Layers").
import type { TaskView } from "./core/task/task-record.js";

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  rejected: 3,
  infrastructure: 4,
  timeout: 124,
  canceled: 130,
} as const;

/** What each exit code of `run` means (docs/reference.md is generated from this). */
export const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: "completed: the command exited 0 (validate: every file valid; serve: clean shutdown)",
  failed: "failed: the command exited non-zero or died by a signal (validate: a file is invalid or unreadable)",
  usage: "usage error, or a file that cannot be read (serve: port taken, state dir held or unusable)",
  rejected: "the envelope was rejected: nothing ran",
  infrastructure: "failed through no fault of the command (infrastructure)",
  timeout: "failed: the deadline passed",
  canceled: "canceled (Ctrl-C)",
};

export function exitCodeOf(task: TaskView): number {
  switch (task.state) {
    case "completed":
      return EXIT.ok;
    case "canceled":
      return EXIT.canceled;
    case "failed":
      if (task.failKind === "infrastructure") return EXIT.infrastructure;
      return task.reason === "timeout" ? EXIT.timeout : EXIT.failed;
    default:
      return EXIT.infrastructure;
  }
}
