// What the terminal UI shows, built from dispatcher events alone: a pure reducer, testable without a terminal.
import type { DispatcherEvent } from "../core/dispatcher.js";
import type { StreamName } from "../core/output-log.js";
import { stripEscapes } from "../core/prompt.js";
import type { TaskView } from "../core/task-record.js";

export interface OutputLine {
  stream: StreamName;
  text: string;
}

export interface ScreenModel {
  task: TaskView | undefined;
  /** Complete lines, the most recent `keepLines` of them. */
  lines: OutputLine[];
  /** Lines that scrolled out of `lines`. */
  linesAbove: number;
  /** A line still being written, per stream, as it came (lines are joined across chunks). */
  partial: Record<StreamName, string>;
  bytes: number;
  /** Answers sent, shown as an echo. */
  answers: Array<{ prompt: string; text: string }>;
  error: string | undefined;
}

export const KEEP_LINES = 500;
const MAX_LINE_CHARS = 2000;

export function emptyModel(task?: TaskView): ScreenModel {
  return {
    task,
    lines: [],
    linesAbove: 0,
    partial: { stdout: "", stderr: "" },
    bytes: 0,
    answers: [],
    error: undefined,
  };
}

/** A line as a terminal would leave it: escapes gone, and a carriage return starts the line over. */
function shownLine(raw: string): string {
  const line = stripEscapes(raw).replace(/\r$/, "");
  return line.slice(line.lastIndexOf("\r") + 1).slice(0, MAX_LINE_CHARS);
}

export function reduce(model: ScreenModel, event: DispatcherEvent, keepLines = KEEP_LINES): ScreenModel {
  if (event.type === "status") return { ...model, task: event.task };
  if (event.text === "") return model;
  // The partial line is kept as it came, so an escape sequence cut between chunks is stripped whole.
  const pieces = (model.partial[event.stream] + event.text).split("\n");
  const partial = (pieces.pop() ?? "").slice(-MAX_LINE_CHARS);
  const added = pieces.map((text) => ({ stream: event.stream, text: shownLine(text) }));
  let lines = added.length > 0 ? [...model.lines, ...added] : model.lines;
  let linesAbove = model.linesAbove;
  if (lines.length > keepLines) {
    linesAbove += lines.length - keepLines;
    lines = lines.slice(lines.length - keepLines);
  }
  return {
    ...model,
    lines,
    linesAbove,
    partial: { ...model.partial, [event.stream]: partial },
    bytes: model.bytes + Buffer.byteLength(event.text),
  };
}

/** The lines to show in `rows` rows: complete lines, then the partial ones, with how many are hidden above. */
export function visibleLines(model: ScreenModel, rows: number): { lines: OutputLine[]; hidden: number } {
  const all = [...model.lines];
  for (const stream of ["stdout", "stderr"] as const) {
    const text = shownLine(model.partial[stream]);
    if (text !== "") all.push({ stream, text });
  }
  const shown = all.slice(Math.max(0, all.length - rows));
  return { lines: shown, hidden: model.linesAbove + all.length - shown.length };
}

export type YesNo = { kind: "yes-no"; yes: string; no: string; enter: string | undefined };

/** How a prompt is answered: y/n at once (Enter sends the capitalised default), or a typed line. */
export function answerStyle(prompt: string): YesNo | { kind: "text" } {
  if (prompt.includes("[y/N]")) return { kind: "yes-no", yes: "y", no: "n", enter: "n" };
  if (prompt.includes("[Y/n]")) return { kind: "yes-no", yes: "y", no: "n", enter: "y" };
  if (prompt.includes("[Y/N]") || prompt.includes("(y/n)"))
    return { kind: "yes-no", yes: "y", no: "n", enter: undefined };
  if (prompt.includes("(yes/no)")) return { kind: "yes-no", yes: "yes", no: "no", enter: undefined };
  return { kind: "text" };
}

export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m > 0 ? `${m}m${String(s).padStart(2, "0")}s` : `${s}s`;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
