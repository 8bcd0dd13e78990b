// How an ended task becomes the exit code of `run` (CONTRACT section 1).
import type { TaskView } from "../core/task-record.js";

export const EXIT = {
  ok: 0,
  failed: 1,
  usage: 2,
  rejected: 3,
  infrastructure: 4,
  timeout: 124,
  canceled: 130,
} as const;

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
