// Admitting an adapter command, and what to spawn and where, checked again just before spawning (a task may have
// waited while the workspace changed).
import { existsSync, statSync } from "node:fs";
import type { Analysis } from "../envelope/envelope.js";
import { type Placement, place } from "../envelope/workspace.js";
import { rejected } from "../errors.js";
import { ADAPTER_NAME, HITL_URI } from "../uris.js";
import { ENDS, type Outcome } from "./outcome.js";
import type { CommandSpec } from "./process.js";
import type { TaskRecord } from "./task-record.js";

/** Admission of an adapter command (CONTRACT 2, 3.1, 4): placed in the workspace, text-line only with HITL. */
export function admitCommand(
  record: TaskRecord,
  analysis: Extract<Analysis, { dispatch: "adapter-command"; valid: true }>,
  workspace: string,
  hitl: { hitlActivated: boolean; forceTextLine?: boolean },
): void {
  const { envelope, envelopePath } = analysis;
  const placed = place(workspace, envelope, envelopePath);
  if (!placed.ok) throw rejected(placed.errors, "adapter-command");
  if (envelope.input_mode === "text-line" && !hitl.hitlActivated && !hitl.forceTextLine) {
    throw rejected(
      [
        {
          path: `${envelopePath}/input_mode`,
          code: "hitl_not_activated",
          message: `expected hitl-prompt/v1 to be activated for input_mode "text-line", found it not activated (add ${HITL_URI} to A2A-Extensions)`,
        },
      ],
      "adapter-command",
    );
  }
  record.envelope = envelope;
  record.placement = placed.placement;
  record.textLine = envelope.input_mode === "text-line" || hitl.forceTextLine === true;
  record.timeoutSeconds = envelope.timeout_seconds;
}

/** The variables the runner gets on top of the tool's own environment (CONTRACT 3.2); PATH is left as it is. */
export const RUNNER_ENV = {
  AIWG_A2A_ADAPTER: "the adapter, sandbox-agent-runner",
  AIWG_A2A_ADAPTER_MODE: "the mode, plan or assess",
  AIWG_A2A_MESSAGE: "the message's text parts joined by newlines",
  AIWG_A2A_TASK_ID: "the task's id",
  AIWG_A2A_INSTANCE_ID: "the runtime's instance id (--instance)",
  AIWG_MISSION_ID: "the task's id again, as agentic-sandbox names it",
} as const;

function runnerEnv(record: TaskRecord, mode: string): Record<keyof typeof RUNNER_ENV, string> {
  return {
    AIWG_A2A_ADAPTER: ADAPTER_NAME,
    AIWG_A2A_ADAPTER_MODE: mode,
    AIWG_A2A_MESSAGE: record.messageText,
    AIWG_A2A_TASK_ID: record.id,
    AIWG_A2A_INSTANCE_ID: record.instanceId,
    AIWG_MISSION_ID: record.id,
  };
}

export type LaunchSpec = Omit<CommandSpec, "timeoutMs" | "killGraceMs">;

export type Prepared = { ok: true; spec: LaunchSpec; placement: Placement } | { ok: false; outcome: Outcome };

/** The runner's command line and environment (CONTRACT 3.2), or the infrastructure failure that stops it. */
export function prepareLaunch(workspace: string, record: TaskRecord): Prepared {
  const envelope = record.envelope as NonNullable<TaskRecord["envelope"]>;
  let placed: ReturnType<typeof place>;
  try {
    placed = place(workspace, envelope, "");
  } catch (error) {
    return { ok: false, outcome: ENDS.workspaceChanged((error as Error).message) };
  }
  if (!placed.ok) return { ok: false, outcome: ENDS.workspaceChanged(placed.errors.map((e) => e.message).join("; ")) };
  const { placement } = placed;
  if (!isDirectory(placement.workingDir)) return { ok: false, outcome: ENDS.missingWorkingDir(placement.workingDir) };
  if (!existsSync(placement.runnerPath)) return { ok: false, outcome: ENDS.missingRunner(placement.runnerPath) };
  return {
    ok: true,
    placement,
    spec: {
      executable: process.execPath,
      args: [placement.runnerPath, "--request", envelope.command[3]],
      cwd: placement.workingDir,
      env: { ...process.env, ...runnerEnv(record, envelope.mode) },
      stdin: record.textLine,
    },
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
