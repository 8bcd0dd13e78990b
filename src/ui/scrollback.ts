// What the screen writes above its live area (CONTRACT section 6): the header, every finished line of output, the
// answers sent, and the summary. Each is written once, as the terminal's own text, so the terminal wraps long lines,
// and its scrollback keeps them all after the run. Needs no Ink, so the first lines appear before Ink has loaded.

import { printable } from "../core/printable.js";
import type { TaskView } from "../core/task/task-record.js";
import { fitPieces, type Piece } from "./fit-line.js";
import type { Paint } from "./paint.js";
import { formatBytes, formatDuration, type ScrollLine } from "./screen-model.js";
import { endingOf } from "./words.js";

export class Scrollback {
  private through: ((text: string) => void) | undefined;

  constructor(
    private readonly out: NodeJS.WritableStream,
    private readonly paint: Paint,
  ) {}

  /** While a live area is drawn, text goes through `write`, which erases the area, writes, and draws it again. */
  route(write: ((text: string) => void) | undefined): void {
    this.through = write;
  }

  write(lines: readonly string[]): void {
    if (lines.length === 0) return;
    const text = `${lines.join("\n")}\n`;
    if (this.through) this.through(text);
    else this.out.write(text);
  }

  lines(lines: readonly ScrollLine[]): void {
    this.write(lines.map((line) => formatLine(line, this.paint)));
  }
}

/** stdout as it is, stderr marked with │ (and yellow), the tool's own notes with ». */
export function formatLine(line: ScrollLine, paint: Paint): string {
  if (line.stream === "stderr") return paint.yellow(`│ ${line.text}`);
  if (line.stream === "note") return paint.dim(`» ${line.text}`);
  return `  ${line.text}`;
}

/** What runs, when the task's view has no envelope of its own (a task on a server says it in its metadata). */
export interface Runs {
  adapter: string;
  mode: string;
}

/**
 * The envelope: adapter, mode, request and working directory (the request alone before the task exists), laid out
 * for `columns` (src/ui/fit-line.ts): paths shortened from the left, the task id never split.
 */
export function headerLines(
  task: TaskView | undefined,
  request: string,
  paint: Paint,
  columns = Number.POSITIVE_INFINITY,
  runs: Runs | undefined = task?.envelope,
): string[] {
  const what: Piece[] = [{ text: "adapter-command", paint: paint.bold }];
  if (runs)
    what.push({ text: printable(runs.adapter), joiner: " " }, { text: printable(runs.mode), paint: paint.cyan });
  else what.push({ text: "echo", joiner: " " });
  what.push({ text: printable(request), path: true });
  const where: Piece[] = [];
  if (task?.workingDir) where.push({ prefix: "in ", text: printable(task.workingDir), path: true });
  if (task) where.push({ prefix: "task ", text: task.id });
  return [...fitPieces(what, columns), ...fitPieces(where, columns).map((line) => paint.dim(line))];
}

/**
 * The last lines of a run: how it ended, how long it took, how much it printed, and what to try when it failed; laid
 * out for `columns` as the header is, the details broken between words.
 */
export function summaryLines(
  task: TaskView,
  bytes: number,
  paint: Paint,
  workspace?: string,
  columns = Number.POSITIVE_INFINITY,
): string[] {
  const ending = endingOf(task, workspace);
  const duration = task.startedAt && task.endedAt ? Date.parse(task.endedAt) - Date.parse(task.startedAt) : 0;
  const colour = ending.ok ? paint.green : task.state === "canceled" ? paint.yellow : paint.red;
  const head = `${ending.ok ? "✔" : "✘"} ${ending.state}`;
  // "timed out after 8 s" already says how long it ran.
  const took = task.reason === "timeout" ? undefined : formatDuration(duration);
  const parts: Piece[] = [{ text: head, paint: (text) => paint.bold(colour(text)) }];
  for (const part of [ending.how, took, `${formatBytes(bytes)} of output`])
    if (part !== undefined) parts.push({ text: part });
  parts.push({ prefix: "task ", text: task.id });
  const details = ending.details.flatMap((line) =>
    fitPieces(
      printable(line)
        .split(" ")
        .map((word) => ({ text: word, joiner: " " })),
      columns,
    ).map((row) => paint.red(row)),
  );
  return [...fitPieces(parts, columns), ...details];
}
