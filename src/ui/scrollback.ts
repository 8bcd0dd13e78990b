// What the screen writes above its live area (CONTRACT section 6): the header, every finished line of output, the
// answers sent, and the summary. Each is written once, as the terminal's own text, so the terminal wraps long lines,
// and its scrollback keeps them all after the run. Needs no Ink, so the first lines appear before Ink has loaded.

import { printable } from "../core/printable.js";
import type { TaskView } from "../core/task/task-record.js";
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

/** The envelope: adapter, mode, request and working directory (the request alone before the task exists). */
export function headerLines(task: TaskView | undefined, request: string, paint: Paint): string[] {
  const envelope = task?.envelope;
  const what = envelope
    ? `${envelope.adapter} · ${paint.cyan(envelope.mode)} · ${printable(request)}`
    : `echo · ${printable(request)}`;
  const lines = [`${paint.bold("adapter-command")} ${what}`];
  const where = [
    task?.workingDir ? `in ${printable(task.workingDir)}` : undefined,
    task ? `task ${task.id}` : undefined,
  ];
  const second = where.filter((part) => part !== undefined).join(" · ");
  if (second) lines.push(paint.dim(second));
  return lines;
}

/** The last lines of a run: how it ended, how long it took, how much it printed, and what to try when it failed. */
export function summaryLines(task: TaskView, bytes: number, paint: Paint, workspace?: string): string[] {
  const ending = endingOf(task, workspace);
  const duration = task.startedAt && task.endedAt ? Date.parse(task.endedAt) - Date.parse(task.startedAt) : 0;
  const colour = ending.ok ? paint.green : task.state === "canceled" ? paint.yellow : paint.red;
  const head = paint.bold(colour(`${ending.ok ? "✔" : "✘"} ${ending.state}`));
  // "timed out after 8 s" already says how long it ran.
  const took = task.reason === "timeout" ? undefined : formatDuration(duration);
  const parts = [ending.how, took, `${formatBytes(bytes)} of output`, `task ${task.id}`].filter(
    (part) => part !== undefined,
  );
  return [`${head} · ${parts.join(" · ")}`, ...ending.details.map((line) => paint.red(printable(line)))];
}
