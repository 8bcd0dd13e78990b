// How a run ended, in words: the screen's summary and the plain mode's closing line say the same (CONTRACT
// section 6). A deadline is "timed out after N s", not the signal the tool sent; a runner that is not where the
// workspace says it should be comes with a hint about --workspace.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { printable } from "../core/printable.js";
import type { TaskView } from "../core/task/task-record.js";
import { RUNNER_PATH } from "../core/uris.js";

export interface Ending {
  ok: boolean;
  /** The state: completed, failed or canceled. */
  state: string;
  /** How it came to it, shortly: "exit code 3", "timed out after 2 s"; undefined when the state says it all. */
  how: string | undefined;
  /** Lines that say more: what went wrong, and what to try. */
  details: string[];
}

export function endingOf(task: TaskView, workspace?: string, exists: (path: string) => boolean = existsSync): Ending {
  const ok = task.state === "completed";
  const details: string[] = [];
  let how: string | undefined;
  if (task.state === "canceled") how = undefined;
  else if (task.reason === "timeout") how = `timed out after ${task.timeoutSeconds ?? "?"} s`;
  else if (task.failKind === "infrastructure") {
    how = task.reason === "spawn_failed" ? "could not start" : "infrastructure failure";
    if (task.statusText) details.push(task.statusText.replace(/^failed: /, ""));
    const hint = workspaceHint(task, workspace, exists);
    if (hint) details.push(hint);
  } else if (task.exitCode !== null) how = `exit code ${task.exitCode}`;
  else if (task.signal) how = `killed by ${task.signal}`;
  return { ok, state: task.state, how, details };
}

/** The lines that close a plain run on stderr: the task's own words, then the details. */
export function closingLines(task: TaskView, workspace?: string, exists?: (path: string) => boolean): string[] {
  const ending = endingOf(task, workspace, exists);
  const first = task.statusText ?? task.state;
  // An infrastructure failure's first detail is its status text again.
  const details = task.failKind === "infrastructure" ? ending.details.slice(task.statusText ? 1 : 0) : ending.details;
  // The words may quote a path from the file (the working directory): no control character reaches the terminal.
  return [first, ...details].map(printable);
}

/** Says where the runner was looked for when it was not there: most often --workspace names the wrong folder. */
function workspaceHint(
  task: TaskView,
  workspace: string | undefined,
  exists: (path: string) => boolean,
): string | undefined {
  if (workspace === undefined || task.dispatch !== "adapter-command" || task.workingDir === undefined) return undefined;
  if (exists(join(task.workingDir, RUNNER_PATH))) return undefined;
  return workspaceQuestion(workspace);
}

/** The hint given wherever the runner is missing: by `run` when it fails, by `validate` as a warning. */
export function workspaceQuestion(workspace: string): string {
  return `is the workspace right? It is ${workspace}; pass --workspace DIR, the folder that plays /workspace`;
}
