// `adapter-command validate`: checks files the way the runtime will, and reports every problem.
import { cwd } from "node:process";
import { analyzeText } from "../a2a/input-file.js";
import type { Envelope, Problem } from "../core/envelope/envelope.js";
import { readablePath } from "../core/envelope/json-pointer.js";
import { inTextOrder } from "../core/envelope/problems.js";
import { place, placementProblems } from "../core/envelope/workspace.js";
import { printable } from "../core/printable.js";
import { ADAPTER_URI } from "../core/uris.js";
import type { Paint } from "../ui/paint.js";
import { workspaceQuestion } from "../ui/words.js";
import type { InputText } from "./input-file.js";

export interface FileVerdict {
  file: string;
  valid: boolean;
  /** null when the file could not be read or parsed far enough to tell. */
  dispatch: "adapter-command" | "echo" | null;
  errors: Problem[];
  warnings: Problem[];
  envelope?: Envelope;
}

/**
 * The verdict on an input already read. Without a workspace the current directory plays it, as it does for `run`,
 * so both refuse the same `working_dir` and both report a runner or request missing there (CONTRACT 3.1).
 */
export function validateInput(file: string, read: InputText, workspace: string | undefined): FileVerdict {
  if (!read.ok) return failed(file, read.problem);
  const { analysis, locate } = analyzeText(read.text);
  const root = workspace ?? cwd();
  if (!analysis.valid) {
    // What the workspace says of the refused envelope (a working_dir outside it) is told too, in the file's order.
    const { refused } = analysis;
    const placing = refused ? placementProblems(root, refused, analysis.errors).map(locate) : [];
    const errors = inTextOrder([...analysis.errors, ...placing]);
    return { file, valid: false, dispatch: analysis.dispatch ?? null, errors, warnings: [] };
  }
  if (analysis.dispatch === "echo") return { file, valid: true, dispatch: "echo", errors: [], warnings: [] };
  const placed = place(root, analysis.envelope, analysis.envelopePath);
  const errors = placed.ok ? [] : inTextOrder(placed.errors.map(locate));
  // `run` says the same when the runner is not there: most often the workspace is the wrong folder.
  const warnings = placed.warnings.map((problem) =>
    locate(
      problem.code === "runner_missing"
        ? { ...problem, message: `${problem.message}; ${workspaceQuestion(root)}` }
        : problem,
    ),
  );
  return {
    file,
    valid: errors.length === 0,
    dispatch: "adapter-command",
    errors,
    warnings,
    envelope: analysis.envelope,
  };
}

export function failed(file: string, problem: Problem): FileVerdict {
  return { file, valid: false, dispatch: null, errors: [problem], warnings: [] };
}

/** The verdict for a person: every value from the file or its name shown with control characters escaped. */
export function formatVerdict(verdict: FileVerdict, paint: Paint): string {
  const file = printable(verdict.file);
  const how =
    verdict.dispatch === "echo" ? "echo dispatch" : `${verdict.envelope?.mode} via ${verdict.envelope?.adapter}`;
  const head = verdict.valid
    ? `${paint.green("valid")}    ${file} (${printable(how)})`
    : `${paint.red("invalid")}  ${file}`;
  const lines = [head];
  for (const problem of verdict.errors) lines.push(`  ${paint.red("error")}   ${line(problem, paint)}`);
  for (const problem of verdict.warnings) lines.push(`  ${paint.yellow("warning")} ${line(problem, paint)}`);
  return lines.join("\n");
}

/**
 * The line that closes a refusal, after the problems: "rejected: N problems", without the "adapter-command/v1"
 * a rejection's message starts with (the line already starts with the tool's name); the message itself when there
 * are no problems to count (a server that sent none).
 */
export function rejectionWords(message: string, problems: number): string {
  if (problems > 0) return `rejected: ${problems} problem${problems === 1 ? "" : "s"} (above)`;
  return message.replace(/^adapter-command\/v1 rejected: /, "rejected: ");
}

/** `12:7 envelope.timeout_seconds: expected …, found … [code]` */
function line(problem: Problem, paint: Paint): string {
  const at = problem.line !== undefined ? `${problem.line}:${problem.column}` : "";
  const field = problem.path ? readablePath(problem.path, ADAPTER_URI) : "";
  const where = [at, printable(field)].filter((part) => part !== "").join(" ");
  return `${where ? `${where}: ` : ""}${printable(problem.message)} ${paint.dim(`[${printable(problem.code)}]`)}`;
}
