// `adapter-command run`: validates one file, dispatches it, shows it live and turns the outcome into an exit code.

import { analyzeText } from "../a2a/input-file.js";
import { inTextOrder, type Problem } from "../core/envelope/problems.js";
import { place } from "../core/envelope/workspace.js";
import { CoreError } from "../core/errors.js";
import { printable } from "../core/printable.js";
import { Dispatcher } from "../core/task/dispatcher.js";
import type { TaskView } from "../core/task/task-record.js";
import { EXIT, exitCodeOf } from "../exit-codes.js";
import type { Io } from "../io/io.js";
import { MemoryStore } from "../store/memory.js";
import { AnswerSource, answerPrompts } from "../ui/answers.js";
import { Interrupts } from "../ui/interrupts.js";
import type { LiveTask } from "../ui/live-task.js";
import { paintFor } from "../ui/paint.js";
import { closingLines } from "../ui/words.js";
import { readInputFile } from "./input-file.js";

export interface RunOptions {
  workspace: string;
  inputMode?: "text-line";
  answer: string[];
  json: boolean;
  tui: boolean;
  settleMs?: number;
  maxOutputBytes?: number;
  /** Also say which containment guard is on. */
  verbose?: boolean;
}

export async function runCommand(file: string, options: RunOptions, io: Io): Promise<number> {
  // Names, paths and messages may come from the file: printed for a person, they cannot drive the terminal.
  const say = (line: string) => io.stderr.write(`adapter-command: ${printable(line)}\n`);
  // The screen needs a keyboard: with stdin piped (`echo y | adapter-command run …`) answers come from its lines.
  // Nor does a CI job get one, even on a pseudo-terminal: Ink would draw nothing there until the end.
  const useTui = options.tui && !options.json && io.stdout.isTTY === true && io.stdin.isTTY === true && !inCi();
  // Ink takes longer to load than the rest: it starts loading now, while the file is read and the task starts.
  const screen = useTui
    ? import("../ui/screen.js").then((module) => {
        module.loadLive();
        return module;
      })
    : undefined;
  const read = await readInputFile(file);
  if (!read.ok) {
    say(`cannot read ${file}: ${read.problem.message} [${read.problem.code}]`);
    if (options.json)
      writeJsonEnd(io, { kind: "unreadable", file, message: read.problem.message, errors: [read.problem] });
    return EXIT.usage;
  }
  const { analysis, locate } = analyzeText(read.text);
  // What `validate` warns of (a request missing from the workspace), said here in its words too; a missing runner
  // ends the task, and its ending says so with the same hint.
  if (analysis.valid && analysis.dispatch === "adapter-command") {
    const placed = place(options.workspace, analysis.envelope, analysis.envelopePath);
    for (const problem of placed.warnings.map(locate)) {
      if (problem.code !== "runner_missing") say(`warning: ${problem.message} [${problem.code}]`);
    }
  }
  const dispatcher = new Dispatcher({
    workspace: options.workspace,
    maxConcurrent: 1,
    store: new MemoryStore(),
    ...(options.maxOutputBytes !== undefined ? { outputLimitBytes: options.maxOutputBytes } : {}),
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
  });
  if (options.verbose) say(`containment: ${dispatcher.containmentKind}`);

  if (screen) {
    // Ink's colours come from chalk, which reads FORCE_COLOR but not NO_COLOR.
    if (process.env.NO_COLOR) process.env.FORCE_COLOR = "0";
    const { runScreen } = await screen;
    const screenOptions = { file, inputMode: options.inputMode, answers: options.answer, workspace: options.workspace };
    return runScreen(dispatcher, analysis, screenOptions, io, (error) =>
      reportRejection(error, file, io, false, locate),
    );
  }

  const attached = options.json
    ? (await import("../ui/json.js")).attachJson(dispatcher, undefined, io.stdout)
    : (await import("../ui/plain.js")).attachPlain(dispatcher, undefined, io.stdout, io.stderr);
  let task: TaskView;
  try {
    task = dispatcher.submit({ analysis, hitlActivated: true, forceTextLine: options.inputMode === "text-line" });
  } catch (error) {
    attached.off();
    return reportRejection(error, file, io, options.json, locate);
  }
  return followInLines(dispatcher, task, attached, options, io);
}

/**
 * The plain and --json modes once the task runs, for a local task and for one on a server alike: answers from
 * --answer and stdin, Ctrl-C, then the closing lines and the exit code.
 */
export async function followInLines(
  source: LiveTask,
  task: TaskView,
  attached: { flow: { drained(): Promise<void> }; off(): void },
  options: { answer: string[]; json: boolean; workspace?: string | undefined; noAnswerLeft?: string },
  io: Io,
): Promise<number> {
  const say = (line: string) => io.stderr.write(`adapter-command: ${printable(line)}\n`);
  const answers = new AnswerSource(options.answer, io.stdin);
  const stopAnswering = answerPrompts(source, task.id, answers, {
    answered: (prompt, text) => say(`answered "${prompt}" with ${JSON.stringify(text)}`),
    refused: (prompt, reason) => say(`could not answer "${prompt}": ${reason}`),
    exhausted: (prompt) => {
      // Without an answer the command reads EOF (a remote task is canceled) rather than waiting for its deadline.
      say(`no answer left for "${prompt}": ${options.noAnswerLeft ?? "closing the command's input"}`);
      source.endInput(task.id);
    },
    // With --json the prompt is inside an event: say in words that a person is expected to type.
    ...(options.json ? { waiting: (prompt: string) => say(`"${prompt}" waits: type an answer and press Enter`) } : {}),
  });
  const interrupts = new Interrupts(source, task.id, (count) => {
    // On a terminal the line discipline has just echoed ^C where the cursor was: what follows starts a new line.
    if (io.stdin.isTTY) io.stderr.write("\n");
    if (count === 1) say("canceling the task (Ctrl-C again stops it at once)");
  });
  const stopListening = interrupts.listen();
  // Nobody reads our output any more (`| head`, a closed terminal): the command must not run on unseen.
  io.stdout.on("error", interrupts.hangUp);
  io.stderr.on("error", interrupts.hangUp);
  try {
    await source.settled(task.id);
  } finally {
    stopListening();
    stopAnswering();
    answers.close();
  }
  const ended = source.get(task.id, false);
  await attached.flow.drained();
  attached.off();
  if (!options.json) {
    const [first, ...more] = closingLines(ended, options.workspace);
    for (const line of [`${first} · task ${ended.id}`, ...more]) say(line);
  }
  return exitCodeOf(ended);
}

/** The test Ink makes (its is-in-ci dependency), so the screen is never chosen where Ink would not draw it. */
function inCi(env = process.env): boolean {
  const set = (key: string) => key in env && env[key] !== "0" && env[key] !== "false";
  return set("CI") || set("CONTINUOUS_INTEGRATION");
}

/**
 * Prints why a file was refused (with --json also as one JSON object on stdout); the exit code says nothing ran.
 * `locate` gives each problem the line and column it points at in the file, as `validate` shows them.
 */
export async function reportRejection(
  error: unknown,
  file: string,
  io: Io,
  json = false,
  locate: (problem: Problem) => Problem = (problem) => problem,
): Promise<number> {
  if (!(error instanceof CoreError) || error.code !== "envelope_rejected") throw error;
  const errors = inTextOrder(((error.data.errors ?? []) as Problem[]).map(locate));
  if (json) writeJsonEnd(io, { kind: "rejected", file, message: error.message, errors });
  // Loaded only now: a run that is not refused has no use for the validator's formatting.
  const { formatVerdict, rejectionWords } = await import("./validate.js");
  io.stderr.write(
    `${formatVerdict({ file, valid: false, dispatch: null, errors, warnings: [] }, paintFor(io.stderr))}\n`,
  );
  io.stderr.write(`adapter-command: ${printable(rejectionWords(error.message, errors.length))}; nothing ran\n`);
  return EXIT.rejected;
}

/** `run --json` when nothing ran: one object, so a reader of stdout learns why without parsing stderr. */
function writeJsonEnd(
  io: Io,
  end: { kind: "rejected" | "unreadable"; file: string; message: string; errors: Problem[] },
): void {
  io.stdout.write(`${JSON.stringify(end)}\n`);
}
