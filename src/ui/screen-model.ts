// What the terminal UI shows, built from dispatcher events alone: a pure reducer, testable without a terminal.
// Finished lines leave the model for the terminal's scrollback (CONTRACT section 6: every line stays readable); the
// model keeps only the line still being written, the task, and what the live area needs.

import { stripEscapes } from "../core/hitl/prompt.js";
import type { DispatcherEvent } from "../core/task/dispatcher.js";
import type { StreamName } from "../core/task/output-log.js";
import { isTerminal } from "../core/task/task.js";
import type { TaskView } from "../core/task/task-record.js";

export interface OutputLine {
  stream: StreamName;
  text: string;
}

/** A line of the tool's own between the output lines: an answer that was sent, a Ctrl-C that was pressed. */
export interface NoteLine {
  stream: "note";
  text: string;
}

export type ScrollLine = OutputLine | NoteLine;

export interface ScreenModel {
  task: TaskView | undefined;
  /** Finished lines not yet written above the live area, in the order they arrived across both streams. */
  lines: ScrollLine[];
  /** The line still being written, per stream, as it came (joined across chunks). */
  partial: Record<StreamName, string>;
  /** The sequence number of the chunk each partial line began with: which of the two came first. */
  partialSeq: Record<StreamName, number>;
  /** The stream's last line was ended early: a line break that comes next ends nothing more. */
  cut: Record<StreamName, boolean>;
  bytes: number;
  error: string | undefined;
  /** Ctrl-C presses so far. */
  interrupts: number;
}

export type ScreenEvent = DispatcherEvent | { type: "note"; text: string };

/** A line still being written that grows past this is written out as it is, and goes on on the next line. */
export const MAX_PARTIAL_CHARS = 16 * 1024;

export function emptyModel(task?: TaskView): ScreenModel {
  return {
    task,
    lines: [],
    partial: { stdout: "", stderr: "" },
    partialSeq: { stdout: 0, stderr: 0 },
    cut: { stdout: false, stderr: false },
    bytes: 0,
    error: undefined,
    interrupts: 0,
  };
}

/** A line as a terminal would leave it: escapes gone, and a carriage return starts the line over. */
function shownLine(raw: string): string {
  const line = stripEscapes(raw).replace(/\r$/, "");
  return line.slice(line.lastIndexOf("\r") + 1);
}

const other = (stream: StreamName): StreamName => (stream === "stdout" ? "stderr" : "stdout");

/** Ends the stream's line early (a line that began after it is finished), as a line of its own. */
function endPartial(model: ScreenModel, stream: StreamName): ScreenModel {
  const raw = model.partial[stream];
  if (raw === "") return model;
  return {
    ...model,
    lines: [...model.lines, { stream, text: shownLine(raw) }],
    partial: { ...model.partial, [stream]: "" },
    cut: { ...model.cut, [stream]: true },
  };
}

/** Ends both lines still being written, the one that began first first. */
function endBoth(model: ScreenModel): ScreenModel {
  const first = model.partialSeq.stdout <= model.partialSeq.stderr ? "stdout" : "stderr";
  return endPartial(endPartial(model, first), other(first));
}

/**
 * Lines are written out in the order they began, across both streams (CONTRACT section 6: arrival order). A line
 * that is finished while the other stream has a line in progress that began before it ends that one first: a
 * `[y/N] ` prompt with no line break stays above the stderr line that answered it.
 */
export function reduce(model: ScreenModel, event: ScreenEvent): ScreenModel {
  if (event.type === "status") {
    // An error about answering belongs to the prompt it was about: a new prompt starts without it.
    const samePrompt = event.task.prompt?.id === model.task?.prompt?.id;
    const next = { ...model, task: event.task, error: samePrompt ? model.error : undefined };
    // The command has ended: nothing will finish its last lines any more.
    return isTerminal(event.task.state) ? endBoth(next) : next;
  }
  if (event.type === "note") {
    const ended = endBoth(model);
    return { ...ended, lines: [...ended.lines, { stream: "note", text: event.text }] };
  }
  if (event.text === "") return model;
  const { stream } = event;
  let text = model.partial[stream] + event.text;
  if (model.cut[stream] && model.partial[stream] === "") text = text.replace(/^\r?\n/, "");
  // The partial line is kept as it came, so an escape sequence cut between chunks is stripped whole.
  const pieces = text.split("\n");
  let partial = pieces.pop() ?? "";
  let before = model;
  if (pieces.length > 0) {
    const began = model.partial[stream] === "" ? event.seq : model.partialSeq[stream];
    const theirs = other(stream);
    if (model.partial[theirs] !== "" && model.partialSeq[theirs] < began) before = endPartial(model, theirs);
  }
  const added: OutputLine[] = pieces.map((piece) => ({ stream, text: shownLine(piece) }));
  let cut = false;
  if (partial.length > MAX_PARTIAL_CHARS) {
    added.push({ stream, text: shownLine(partial) });
    partial = "";
    cut = true;
  }
  const partialSeq = pieces.length > 0 || model.partial[stream] === "" ? event.seq : model.partialSeq[stream];
  return {
    ...before,
    lines: added.length > 0 ? [...before.lines, ...added] : before.lines,
    partial: { ...before.partial, [stream]: partial },
    partialSeq: { ...before.partialSeq, [stream]: partialSeq },
    cut: { ...before.cut, [stream]: cut },
    // The bytes the command wrote (CONTRACT 3.3), not the length of their decoded text.
    bytes: before.bytes + event.raw.length,
  };
}

/** The lines still being written, as the live area shows them, the one that began first first. */
export function partialLines(model: ScreenModel): OutputLine[] {
  const streams: StreamName[] =
    model.partialSeq.stdout <= model.partialSeq.stderr ? ["stdout", "stderr"] : ["stderr", "stdout"];
  return streams
    .map((stream) => ({ stream, text: shownLine(model.partial[stream]) }))
    .filter((line) => line.text !== "");
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

/** Whole seconds, rounded down: how long something has run. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return m > 0 ? `${m}m${String(s).padStart(2, "0")}s` : `${s}s`;
}

/** Whole seconds, rounded up: the time left says 0s only once the deadline has come. */
export function formatTimeLeft(ms: number): string {
  return formatDuration(Math.ceil(Math.max(0, ms) / 1000) * 1000);
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
