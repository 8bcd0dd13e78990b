// What the front ends (screen, plain, --json, answers, Ctrl-C) need of whatever runs the task: the local dispatcher
// has it, and so has the follower of a task on a server (src/client/remote-task.ts), so both are shown alike.
import type { Dispatcher } from "../core/task/dispatcher.js";

export type LiveTask = Pick<
  Dispatcher,
  | "subscribe"
  | "get"
  | "answer"
  | "cancelIfRunning"
  | "killAll"
  | "settled"
  | "endInput"
  | "pauseOutput"
  | "resumeOutput"
> & {
  /** A task on a server may be answered by another client: the screen shows that answer as it shows its own. */
  onAnsweredElsewhere?(listener: (answer: { prompt: string; text: string }) => void): () => void;
};
