// `run` in a terminal (CONTRACT section 6). The header and every finished line are written at once, above the live
// area, so they reach the terminal's scrollback; the live area (Ink) is drawn once Ink has loaded, which takes
// longer than starting the task. This module owns the dispatcher subscription, the answers and Ctrl-C.
import { setTimeout as sleep } from "node:timers/promises";
import type { Analysis } from "../core/envelope/envelope.js";
import type { Dispatcher } from "../core/task/dispatcher.js";
import { isTerminal } from "../core/task/task.js";
import type { TaskView } from "../core/task/task-record.js";
import { EXIT, exitCodeOf } from "../exit-codes.js";
import type { Io } from "../io/io.js";
import { AnswerSource, answerPrompts, sendAnswer } from "./answers.js";
import type { LiveOptions, MountedLive } from "./ink/run-ink.js";
import { Interrupts } from "./interrupts.js";
import { holdKeys } from "./key-hold.js";
import type { LiveTask } from "./live-task.js";
import { ModelStore } from "./model-store.js";
import { paintFor } from "./paint.js";
import { headerLines, type Runs, Scrollback, summaryLines } from "./scrollback.js";

let loading: Promise<typeof import("./ink/run-ink.js")> | undefined;

/** Starts loading Ink (the slow part of the screen) without waiting for it: call it as early as possible. */
export function loadLive(): Promise<typeof import("./ink/run-ink.js")> {
  loading ??= import("./ink/run-ink.js");
  loading.catch(() => {});
  return loading;
}

export interface ScreenOptions {
  file: string;
  inputMode: "text-line" | undefined;
  /** --answer values: they answer the first prompts, before anything is typed. */
  answers: readonly string[];
  /** The --workspace, named in the hint when the runner is not found. */
  workspace?: string;
  Screen?: LiveOptions["Screen"];
}

/** Lets the last frame Ink was asked for reach the terminal before it is erased (Ink draws at most every 33 ms). */
const SETTLE_MS = 60;

export async function runScreen(
  dispatcher: Dispatcher,
  analysis: Analysis,
  options: ScreenOptions,
  io: Io,
  reportRejection: (error: unknown, file: string, io: Io) => number | Promise<number>,
): Promise<number> {
  const start = () => {
    const task = dispatcher.submit({ analysis, hitlActivated: true, forceTextLine: options.inputMode === "text-line" });
    const request =
      analysis.valid && analysis.dispatch === "adapter-command" ? analysis.envelope.command[3] : options.file;
    return { task, request: request ?? options.file };
  };
  return showTask(dispatcher, start, options, io, reportRejection);
}

/** The task once started or found, what the header names as its request, and what runs it when it has no envelope. */
export interface Started {
  task: TaskView;
  request: string;
  runs?: Runs | undefined;
}

/**
 * The screen over any task source (the local dispatcher, or a task on a server): `start` starts or finds the task
 * once the screen listens, and names what runs for the header; what it throws goes to `reportRejection`.
 */
export async function showTask(
  dispatcher: LiveTask,
  start: () => Started | Promise<Started>,
  options: ScreenOptions,
  io: Io,
  reportRejection: (error: unknown, file: string, io: Io) => number | Promise<number>,
): Promise<number> {
  const live = loadLive();
  const paint = paintFor(io.stdout);
  const scrollback = new Scrollback(io.stdout, paint);
  const store = new ModelStore((lines) => scrollback.lines(lines));
  const off = dispatcher.subscribe((event) => store.dispatch(event));
  let taskId: string;
  try {
    const { task, request, runs } = await start();
    taskId = task.id;
    scrollback.write(headerLines(task, request, paint, io.stdout.columns || undefined, runs ?? task.envelope));
  } catch (error) {
    off();
    return reportRejection(error, options.file, io);
  }

  const interrupts = new Interrupts(dispatcher, taskId, (count) => store.interrupted(count));
  const stopListening = interrupts.listen();
  const releaseKeys = holdKeys(io.stdin, interrupts.interrupt);
  const stopAnswering = answerPrompts(dispatcher, taskId, new AnswerSource(options.answers, undefined), {
    answered: (prompt, text) => store.answered(prompt, text, "--answer"),
    refused: (prompt, reason) => store.dispatch({ type: "note", text: `--answer not taken by ${prompt}: ${reason}` }),
    exhausted: () => {},
  });
  const offElsewhere = dispatcher.onAnsweredElsewhere?.(({ prompt, text }) =>
    store.answered(prompt, text, "from another client"),
  );
  const onAnswer = async (text: string) => {
    const result = await sendAnswer(dispatcher, taskId, text);
    if (result.ok) store.answered(result.prompt, text);
    else store.failed(result.reason);
    return result.ok;
  };
  const restore = () => {
    if (io.stdin.isTTY) io.stdin.setRawMode?.(false);
    io.stdout.write("\u001b[?25h");
  };
  process.once("exit", restore);

  const settled = dispatcher.settled(taskId);
  let mounted: MountedLive | undefined;
  let crashed = false;
  // A quick command may be over before Ink has loaded: then there is no live area to draw at all.
  const loaded = await Promise.race([settled.then(() => undefined), live.catch(() => undefined)]);
  if (loaded && !isTerminal(dispatcher.get(taskId, false).state)) {
    releaseKeys(true);
    mounted = loaded.mountLive(
      {
        store,
        scrollback,
        onAnswer,
        onInterrupt: interrupts.interrupt,
        ...(options.Screen ? { Screen: options.Screen } : {}),
      },
      io,
    );
    const exited = mounted.exited.then(
      () => {},
      () => {
        // The screen broke: the task must not run on unseen.
        crashed = true;
        dispatcher.cancelIfRunning(taskId);
      },
    );
    await Promise.race([settled, exited]);
  }
  await settled;
  store.flush();
  if (mounted && !crashed) {
    await sleep(SETTLE_MS);
    mounted.close();
    await mounted.exited.catch(() => {});
  }
  releaseKeys(false);
  scrollback.route(undefined);
  const ended = dispatcher.get(taskId, false);
  scrollback.write([
    "",
    ...summaryLines(ended, store.get().bytes, paint, options.workspace, io.stdout.columns || undefined),
  ]);
  off();
  stopAnswering();
  offElsewhere?.();
  stopListening();
  process.off("exit", restore);
  restore();
  return crashed ? EXIT.infrastructure : exitCodeOf(ended);
}
