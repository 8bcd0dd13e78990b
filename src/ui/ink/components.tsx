// The screen's live area: display only, and kept small (the line still being written, the prompt box, the state);
// everything finished is written above it, to the terminal's scrollback. Answers and Ctrl-C leave through the
// callbacks; nothing here reaches a service.
import { Box, type Key, Text, useInput } from "ink";
import { useEffect, useReducer, useRef, useState } from "react";
import { isTerminal } from "../../core/task/task.js";
import type { TaskView } from "../../core/task/task-record.js";
import { inputView, LineEditor } from "../line-editor.js";
import {
  answerStyle,
  formatDuration,
  formatTimeLeft,
  type OutputLine,
  partialLines,
  type ScreenModel,
} from "../screen-model.js";

export interface ScreenProps {
  model: ScreenModel;
  now: number;
  /** The terminal's width. */
  columns: number;
  /** The terminal's height: the live area keeps under it (src/ui/ink/reflow.ts says why). */
  rows?: number;
  /** Sends an answer; resolves false when it was refused (the prompt box then takes input again). */
  onAnswer(text: string): Promise<boolean> | undefined;
  onInterrupt(): void;
}

/** The line still being written: its end, on one row, so a long one does not grow the live area. */
export function PartialLine({ line }: { line: OutputLine }) {
  const stderr = line.stream === "stderr";
  return (
    <Text color={stderr ? "yellow" : undefined} wrap="truncate-start">
      {stderr ? "│ " : "  "}
      {line.text}
    </Text>
  );
}

const BAR = 20;
/** A bar shorter than this says too little to be worth its columns. */
const MIN_BAR = 6;

/** What Ctrl-C does now, longest first: the shorter words are for narrow terminals. */
function keyHints(interrupts: number): string[] {
  if (interrupts === 0) return ["Ctrl-C cancels"];
  if (interrupts === 1) return ["canceling… Ctrl-C again kills it now", "Ctrl-C again kills it now", "Ctrl-C kills"];
  return ["killing…"];
}

/**
 * The state line's parts for `columns`: what gives way first on a narrow terminal is the bar (shorter, then gone),
 * then the time left, then the elapsed time; the state and what Ctrl-C does stay (docs/reference.md, "The screen").
 */
export function statusParts(
  task: TaskView,
  now: number,
  interrupts: number,
  columns: number,
): { elapsed: string; bar: string; keys: string } {
  const started = task.startedAt ? Date.parse(task.startedAt) : now;
  const deadline = task.deadline ? Date.parse(task.deadline) : undefined;
  const elapsed = ` ${formatDuration(now - started)}`;
  let done: number | undefined;
  let left = "";
  if (deadline !== undefined && deadline > started) {
    // The clock tick may be a little older than startedAt, and the task may outlive its deadline: clamp to 0..1.
    done = Math.min(1, Math.max(0, (now - started) / (deadline - started)));
    left = ` ${formatTimeLeft(deadline - Math.max(now, started))} left`;
  }
  const barOf = (width: number) => {
    if (done === undefined || width === 0) return left;
    const filled = Math.round(done * width);
    return ` ${"█".repeat(filled)}${"░".repeat(width - filled)}${left}`;
  };
  const hints = keyHints(interrupts);
  for (const keys of hints) {
    const fixed = task.state.length + 3 + keys.length;
    const room = columns - fixed - elapsed.length - left.length - 1;
    if (done !== undefined && room >= MIN_BAR) return { elapsed, bar: barOf(Math.min(BAR, room)), keys };
    if (fixed + elapsed.length + left.length <= columns) return { elapsed, bar: barOf(0), keys };
    if (fixed + elapsed.length <= columns) return { elapsed, bar: "", keys };
    if (fixed <= columns) return { elapsed: "", bar: "", keys };
  }
  return { elapsed: "", bar: "", keys: hints[hints.length - 1] ?? "" };
}

export function StatusLine({
  task,
  now,
  interrupts = 0,
  columns = 80,
}: {
  task: TaskView | undefined;
  now: number;
  interrupts?: number;
  /** The terminal's width: the line is fitted to it, keeping the state and what Ctrl-C does. */
  columns?: number;
}) {
  if (!task) return <Text dimColor>starting…</Text>;
  const { elapsed, bar, keys } = statusParts(task, now, interrupts, columns);
  const colour = task.state === "input-required" ? "magenta" : "blue";
  return (
    <Text wrap="truncate-end">
      <Text color={colour} bold>
        {task.state}
      </Text>
      {elapsed}
      <Text dimColor>{bar}</Text>
      <Text dimColor> · </Text>
      <Text color={interrupts > 0 ? "yellow" : undefined} dimColor={interrupts === 0}>
        {keys}
      </Text>
    </Text>
  );
}

/** A key as Ink reports it. */
export type TypedKey = readonly [input: string, key: Key];
/** The keys kept for a prompt that is on the screen but not yet detected. */
const MAX_TYPED_AHEAD = 256;

/** The frame's own columns: the border and the padding of the prompt box. */
const BOX_EDGES = 4;

export function PromptBox({
  prompt,
  onAnswer,
  error,
  columns = 80,
  compact = false,
  typedAhead = [],
}: {
  prompt: string;
  onAnswer(text: string): Promise<boolean> | undefined;
  error?: string | undefined;
  columns?: number;
  /** Without its frame (2 rows fewer), for a terminal too short for it. */
  compact?: boolean;
  /** Keys typed at the question before it became a prompt: the box takes them first, as if typed into it. */
  typedAhead?: readonly TypedKey[];
}) {
  const style = answerStyle(prompt);
  const [editor] = useState(() => new LineEditor());
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  // Once an answer is on its way, keys wait: a second Enter in the same burst must not send a second answer.
  const sending = useRef(false);
  const [dropped, setDropped] = useState(0);
  const send = (text: string) => {
    sending.current = true;
    onAnswer(text)?.then((accepted) => {
      if (!accepted) sending.current = false;
    });
  };
  const onKey = (input: string, key: Key) => {
    if ((key.ctrl && input === "c") || sending.current) return;
    if (style.kind === "yes-no") {
      const lower = input.toLowerCase();
      if (lower === "y") send(style.yes);
      else if (lower === "n") send(style.no);
      else if (key.return && style.enter !== undefined) send(style.enter);
      return;
    }
    if (key.leftArrow) editor.left();
    else if (key.rightArrow) editor.right();
    else if (key.home) editor.home();
    else if (key.end) editor.end();
    // Ink reports DEL (what Backspace sends) as `delete`, like the Delete key: both remove the grapheme before.
    else if (key.backspace || key.delete) editor.backspace();
    else if (key.ctrl) editKey(editor, input);
    else if (key.meta || key.escape || key.tab || key.upArrow || key.downArrow || key.pageUp || key.pageDown) return;
    else {
      const lines = editor.type(input);
      const [first, ...rest] = lines;
      if (first !== undefined) send(first);
      if (rest.length > 0) setDropped(rest.length);
    }
    redraw();
  };
  useInput(onKey);
  const replayed = useRef(false);
  // biome-ignore lint/correctness/useExhaustiveDependencies: the keys typed ahead are taken once, when the box appears
  useEffect(() => {
    if (replayed.current) return;
    replayed.current = true;
    for (const [input, key] of typedAhead) onKey(input, key);
  }, []);
  const width = Math.max(4, columns - (compact ? 0 : BOX_EDGES) - 2);
  const view = inputView(editor.value, editor.cursor, width);
  return (
    <Box
      flexDirection="column"
      {...(compact ? {} : { borderStyle: "round" as const, borderColor: "magenta", paddingX: 1 })}
    >
      <Text bold wrap="truncate-end">
        {prompt}
      </Text>
      {style.kind === "yes-no" ? (
        <Text dimColor>
          press {style.yes === "y" ? "y" : "y (yes)"} or {style.no === "n" ? "n" : "n (no)"}
          {style.enter !== undefined ? `; Enter sends "${style.enter}"` : ""}
        </Text>
      ) : (
        <>
          <Text>
            <Text color="magenta">› </Text>
            {view.before}
            <Text inverse>{view.under}</Text>
            {view.after}
          </Text>
          <Text dimColor>
            Enter sends the line
            {dropped > 0 ? ` (the ${dropped} line${dropped === 1 ? "" : "s"} pasted after it were not sent)` : ""}
          </Text>
        </>
      )}
      {error ? <Text color="red">{error}</Text> : null}
    </Box>
  );
}

/** The line-editing keys a terminal's line discipline and readline give. */
function editKey(editor: LineEditor, input: string): void {
  if (input === "a") editor.home();
  else if (input === "e") editor.end();
  else if (input === "b") editor.left();
  else if (input === "f") editor.right();
  else if (input === "d") editor.deleteForward();
  else if (input === "u") editor.deleteToStart();
  else if (input === "k") editor.deleteToEnd();
  else if (input === "w") editor.deleteWordBackward();
}

/** The live area: nothing once the task has ended (the summary is written above it, as the last lines). */
/** The rows a prompt box takes: its text, the input or hint lines, an error, and its frame unless compact. */
function promptRows(prompt: string, error: string | undefined, compact: boolean): number {
  return (answerStyle(prompt).kind === "yes-no" ? 2 : 3) + (error ? 1 : 0) + (compact ? 0 : 2);
}

export function LiveArea({ model, now, columns, rows, onAnswer, onInterrupt }: ScreenProps) {
  const task = model.task;
  const prompt = task?.state === "input-required" ? task.prompt : undefined;
  // A question is on the screen a moment before it is a prompt (the command must fall quiet first, CONTRACT
  // section 4): keys typed at it are kept for the prompt box, unless more output comes first (then they were typed
  // at something else).
  const ahead = useRef<{ bytes: number; keys: TypedKey[] }>({ bytes: -1, keys: [] });
  useInput((input, key) => {
    if (key.ctrl && input === "c") return onInterrupt();
    if (prompt) return;
    if (ahead.current.bytes !== model.bytes) ahead.current = { bytes: model.bytes, keys: [] };
    if (ahead.current.keys.length < MAX_TYPED_AHEAD) ahead.current.keys.push([input, key]);
  });
  // Handed to one prompt box only (its effect runs before this one).
  const promptId = prompt?.id;
  useEffect(() => {
    if (promptId !== undefined) ahead.current = { bytes: -1, keys: [] };
  }, [promptId]);
  if (task && isTerminal(task.state)) return null;
  const typedAhead = prompt && ahead.current.bytes === model.bytes ? ahead.current.keys : [];
  // The area stays under the terminal's height, so the terminal never has to scroll it: first the prompt (framed
  // if that fits with the status line), then the status line, then the lines still being written.
  let room = (rows ?? Number.POSITIVE_INFINITY) - 1 - (!prompt && model.error ? 1 : 0);
  const compact = prompt !== undefined && promptRows(prompt.text, model.error, false) + 1 > room;
  if (prompt) room -= promptRows(prompt.text, model.error, compact);
  const status = room >= 1 || !prompt;
  if (status) room -= 1;
  const partial = partialLines(model);
  const shown = room >= partial.length ? partial : partial.slice(partial.length - Math.max(0, room));
  return (
    <Box flexDirection="column">
      {shown.map((line) => (
        <PartialLine key={line.stream} line={line} />
      ))}
      {prompt ? (
        <PromptBox
          key={prompt.id}
          prompt={prompt.text}
          onAnswer={onAnswer}
          error={model.error}
          columns={columns}
          compact={compact}
          typedAhead={typedAhead}
        />
      ) : model.error ? (
        <Text color="red">{model.error}</Text>
      ) : null}
      {status ? <StatusLine task={task} now={now} interrupts={model.interrupts} columns={columns} /> : null}
    </Box>
  );
}
