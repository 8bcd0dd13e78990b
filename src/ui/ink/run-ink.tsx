// `run` in a terminal: owns the dispatcher subscription and the Ink instance; the screen only displays.
import { render } from "ink";
import { type ReactNode, useEffect, useState, useSyncExternalStore } from "react";
import { EXIT, exitCodeOf } from "../../commands/exit-codes.js";
import type { Dispatcher, DispatcherEvent } from "../../core/dispatcher.js";
import type { Analysis } from "../../core/envelope.js";
import { CoreError } from "../../core/errors.js";
import { isTerminal } from "../../core/task.js";
import type { Io } from "../../io/io.js";
import { emptyModel, reduce, type ScreenModel } from "../screen-model.js";
import { RunScreen, type ScreenProps } from "./components.js";

/** Holds the screen model; listeners hear of changes at most every `intervalMs`, so bursts of output don't flicker. */
export class ModelStore {
  private model: ScreenModel = emptyModel();
  private readonly listeners = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly intervalMs = 40) {}

  get = () => this.model;

  subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  dispatch(event: DispatcherEvent): void {
    this.update(reduce(this.model, event), event.type === "status");
  }

  answered(prompt: string, text: string): void {
    this.update(
      { ...this.model, answers: [...this.model.answers, { prompt, text }].slice(-20), error: undefined },
      true,
    );
  }

  failed(error: string): void {
    this.update({ ...this.model, error }, true);
  }

  private update(next: ScreenModel, now: boolean): void {
    this.model = next;
    if (now) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.notify();
    } else
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.notify();
      }, this.intervalMs);
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

function Live({
  store,
  request,
  rows,
  onAnswer,
  onCancel,
  Screen,
}: {
  store: ModelStore;
  request: string;
  rows: number;
  onAnswer(text: string): void;
  onCancel(): void;
  Screen: (props: ScreenProps) => ReactNode;
}) {
  const model = useSyncExternalStore(store.subscribe, store.get);
  const [now, setNow] = useState(Date.now());
  const ended = model.task !== undefined && isTerminal(model.task.state);
  useEffect(() => {
    if (ended) return;
    const tick = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(tick);
  }, [ended]);
  return <Screen model={model} request={request} now={now} rows={rows} onAnswer={onAnswer} onCancel={onCancel} />;
}

function describe(error: unknown): string {
  if (!(error instanceof CoreError)) return String(error);
  const reason = error.data.reason;
  if (reason === "deadline_passed") return "the deadline has passed: the answer was not sent";
  if (reason === "unknown_or_answered")
    return "that prompt is no longer open (the command printed more or it was answered)";
  if (reason === "no_live_binding") return "the command is no longer running";
  if (reason === "delivery_failed") return "the command did not take the answer (its input is closed)";
  return error.data.validation_errors?.map((e) => e.message).join("; ") ?? error.message;
}

export async function runInk(
  dispatcher: Dispatcher,
  analysis: Analysis,
  /** `Screen` replaces the run screen (tests use it to crash one). */
  options: { file: string; inputMode: "text-line" | undefined; Screen?: (props: ScreenProps) => ReactNode },
  io: Io,
  reportRejection: (error: unknown, file: string, io: Io) => number,
): Promise<number> {
  const store = new ModelStore();
  const off = dispatcher.subscribe((event) => store.dispatch(event));
  let taskId: string;
  try {
    taskId = dispatcher.submit({ analysis, hitlActivated: true, forceTextLine: options.inputMode === "text-line" }).id;
  } catch (error) {
    off();
    return reportRejection(error, options.file, io);
  }
  const request =
    analysis.valid && analysis.dispatch === "adapter-command" ? analysis.envelope.command[3] : options.file;
  const onAnswer = (text: string) => {
    const task = dispatcher.get(taskId, false);
    if (!task.prompt) return;
    const prompt = task.prompt;
    dispatcher
      .answer({ taskId, contextId: task.contextId, response: { prompt_id: prompt.id, payload: { text } } })
      .then(() => store.answered(prompt.text, text))
      .catch((error: unknown) => store.failed(describe(error)));
  };
  const onCancel = () => {
    dispatcher.cancelIfRunning(taskId);
  };
  const restore = () => {
    if (io.stdin.isTTY) io.stdin.setRawMode?.(false);
    io.stdout.write("\u001b[?25h");
  };
  process.once("exit", restore);
  const onHangUp = () => {
    onCancel();
    dispatcher.killAll();
  };
  process.on("SIGINT", onCancel);
  process.on("SIGTERM", onCancel);
  process.on("SIGHUP", onHangUp);
  const rows = Math.max(5, (io.stdout.rows ?? 24) - 8);
  const instance = render(
    <Live
      store={store}
      request={request}
      rows={rows}
      onAnswer={onAnswer}
      onCancel={onCancel}
      Screen={options.Screen ?? RunScreen}
    />,
    {
      stdin: io.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  );
  let crashed = false;
  const exited = instance.waitUntilExit().catch(() => {
    crashed = true;
    onCancel();
  });
  await Promise.race([dispatcher.settled(taskId), exited]);
  await dispatcher.settled(taskId);
  // Let the final frame (the summary) render before leaving.
  await new Promise((resolve) => setTimeout(resolve, 60));
  instance.unmount();
  await exited;
  off();
  process.off("SIGINT", onCancel);
  process.off("SIGTERM", onCancel);
  process.off("SIGHUP", onHangUp);
  restore();
  return crashed ? EXIT.infrastructure : exitCodeOf(dispatcher.get(taskId, false));
}
