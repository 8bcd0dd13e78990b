// `adapter-command run`: validates one file, dispatches it, shows it live and turns the outcome into an exit code.
import { Dispatcher } from "../core/dispatcher.js";
import { analyzeInput, parseJsonText } from "../core/envelope.js";
import { CoreError } from "../core/errors.js";
import type { Problem } from "../core/problems.js";
import type { TaskView } from "../core/task-record.js";
import type { Io } from "../io/io.js";
import { AnswerSource, answerPrompts } from "../ui/answers.js";
import { attachJson } from "../ui/json.js";
import { paintFor } from "../ui/paint.js";
import { attachPlain } from "../ui/plain.js";
import { EXIT, exitCodeOf } from "./exit-codes.js";
import { readInputFile } from "./input-file.js";
import { formatVerdict } from "./validate.js";

export interface RunOptions {
  workspace: string;
  inputMode?: "text-line";
  answer: string[];
  json: boolean;
  tui: boolean;
  settleMs?: number;
  maxOutputBytes?: number;
}

export async function runCommand(file: string, options: RunOptions, io: Io): Promise<number> {
  const say = (line: string) => io.stderr.write(`adapter-command: ${line}\n`);
  const read = await readInputFile(file);
  if (!read.ok && read.unreadable) {
    say(`cannot read ${file}: ${read.problem.message}`);
    return EXIT.usage;
  }
  const parsed = read.ok ? parseJsonText(read.text) : ({ ok: false, problem: read.problem } as const);
  const analysis = parsed.ok ? analyzeInput(parsed.value) : { valid: false as const, errors: [parsed.problem] };
  const dispatcher = new Dispatcher({
    workspace: options.workspace,
    maxConcurrent: 1,
    ...(options.maxOutputBytes !== undefined ? { outputLimitBytes: options.maxOutputBytes } : {}),
    ...(options.settleMs !== undefined ? { settleMs: options.settleMs } : {}),
  });
  say(`containment: ${dispatcher.containmentKind}`);

  // The screen needs a keyboard: with stdin piped (`echo y | adapter-command run …`) answers come from its lines.
  // Nor does a CI job get one, even on a pseudo-terminal: Ink would draw nothing there until the end.
  const useTui = options.tui && !options.json && io.stdout.isTTY === true && io.stdin.isTTY === true && !inCi();
  if (useTui) {
    // Ink's colours come from chalk, which reads FORCE_COLOR but not NO_COLOR.
    if (process.env.NO_COLOR) process.env.FORCE_COLOR = "0";
    const { runInk } = await import("../ui/ink/run-ink.js");
    return runInk(dispatcher, analysis, { file, inputMode: options.inputMode }, io, reportRejection);
  }

  const attached = options.json
    ? attachJson(dispatcher, undefined, io.stdout)
    : attachPlain(dispatcher, undefined, io.stdout, io.stderr);
  let task: TaskView;
  try {
    task = dispatcher.submit({ analysis, hitlActivated: true, forceTextLine: options.inputMode === "text-line" });
  } catch (error) {
    attached.off();
    return reportRejection(error, file, io);
  }
  const answers = new AnswerSource(options.answer, io.stdin);
  const stopAnswering = answerPrompts(dispatcher, task.id, answers, say);
  let interrupts = 0;
  const onSignal = () => {
    interrupts += 1;
    if (interrupts === 1) {
      say("canceling the task (again to stop at once)");
      dispatcher.cancelIfRunning(task.id);
    } else dispatcher.killAll();
  };
  // Nobody reads our output any more (`| head`, a closed terminal): the command must not run on unseen.
  const onGone = () => {
    dispatcher.cancelIfRunning(task.id);
    dispatcher.killAll();
  };
  const signals = ["SIGINT", "SIGTERM", "SIGHUP"] as const;
  for (const signal of signals) process.on(signal, signal === "SIGHUP" ? onGone : onSignal);
  io.stdout.on("error", onGone);
  io.stderr.on("error", onGone);
  try {
    await dispatcher.settled(task.id);
  } finally {
    for (const signal of signals) process.off(signal, signal === "SIGHUP" ? onGone : onSignal);
    stopAnswering();
    answers.close();
  }
  const ended = dispatcher.get(task.id, false);
  await attached.flow.drained();
  attached.off();
  if (!options.json && ended.state !== "completed") say(ended.statusText ?? ended.state);
  return exitCodeOf(ended);
}

/** The test Ink makes (its is-in-ci dependency), so the screen is never chosen where Ink would not draw it. */
function inCi(env = process.env): boolean {
  const set = (key: string) => key in env && env[key] !== "0" && env[key] !== "false";
  return set("CI") || set("CONTINUOUS_INTEGRATION");
}

/** Prints why a file was refused; the exit code says nothing ran. */
export function reportRejection(error: unknown, file: string, io: Io): number {
  if (!(error instanceof CoreError) || error.code !== "envelope_rejected") throw error;
  const errors = (error.data.errors ?? []) as Problem[];
  io.stderr.write(
    `${formatVerdict({ file, valid: false, dispatch: null, errors, warnings: [] }, paintFor(io.stderr))}\n`,
  );
  io.stderr.write(`adapter-command: ${error.message}; nothing ran\n`);
  return EXIT.rejected;
}
