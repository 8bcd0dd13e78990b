// `adapter-command validate`: checks files the way the runtime will, and reports every problem.
import { analyzeInput, type Envelope, type Problem, parseJsonText } from "../core/envelope.js";
import { place, workingDirEscapes } from "../core/workspace.js";
import type { Paint } from "../ui/paint.js";
import { readInputFile } from "./input-file.js";

export interface FileVerdict {
  file: string;
  valid: boolean;
  /** null when the file could not be read or parsed far enough to tell. */
  dispatch: "adapter-command" | "echo" | null;
  errors: Problem[];
  warnings: Problem[];
  envelope?: Envelope;
}

export async function validateFile(file: string, workspace: string | undefined): Promise<FileVerdict> {
  const read = await readInputFile(file);
  if (!read.ok) return failed(file, read.problem);
  const parsed = parseJsonText(read.text);
  if (!parsed.ok) return failed(file, parsed.problem);
  const analysis = analyzeInput(parsed.value);
  if (!analysis.valid) {
    return {
      file,
      valid: false,
      dispatch: analysis.dispatch ?? null,
      errors: analysis.errors,
      warnings: [],
    };
  }
  if (analysis.dispatch === "echo") return { file, valid: true, dispatch: "echo", errors: [], warnings: [] };
  const verdict: FileVerdict = {
    file,
    valid: true,
    dispatch: "adapter-command",
    errors: [],
    warnings: [],
    envelope: analysis.envelope,
  };
  if (workspace !== undefined) {
    const placed = place(workspace, analysis.envelope, analysis.envelopePath);
    verdict.warnings = placed.warnings;
    if (!placed.ok) {
      verdict.valid = false;
      verdict.errors = placed.errors;
    }
  } else {
    const leaves = workingDirEscapes(analysis.envelope, analysis.envelopePath);
    if (leaves) {
      verdict.valid = false;
      verdict.errors = [leaves];
    }
  }
  return verdict;
}

function failed(file: string, problem: Problem): FileVerdict {
  return { file, valid: false, dispatch: null, errors: [problem], warnings: [] };
}

export function formatVerdict(verdict: FileVerdict, paint: Paint): string {
  const head = verdict.valid
    ? `${paint.green("valid")}    ${verdict.file} (${verdict.dispatch === "echo" ? "echo dispatch" : `${verdict.envelope?.mode} via ${verdict.envelope?.adapter}`})`
    : `${paint.red("invalid")}  ${verdict.file}`;
  const lines = [head];
  for (const problem of verdict.errors)
    lines.push(`  ${paint.red("error")}   ${where(problem)}${problem.message} ${paint.dim(`[${problem.code}]`)}`);
  for (const problem of verdict.warnings)
    lines.push(`  ${paint.yellow("warning")} ${where(problem)}${problem.message} ${paint.dim(`[${problem.code}]`)}`);
  return lines.join("\n");
}

function where(problem: Problem): string {
  if (problem.line !== undefined) return `${problem.line}:${problem.column}: `;
  return problem.path ? `${problem.path}: ` : "";
}
