// The run screen: display only. Answers and cancels leave through the callbacks; nothing here reaches a service.
import { Box, Text, useInput } from "ink";
import { useState } from "react";
import type { TaskView } from "../../core/task-record.js";
import { answerStyle, formatBytes, formatDuration, type ScreenModel, visibleLines } from "../screen-model.js";

export interface ScreenProps {
  model: ScreenModel;
  request: string;
  now: number;
  rows: number;
  onAnswer(text: string): void;
  onCancel(): void;
}

export function Header({ task, request }: { task: TaskView | undefined; request: string }) {
  const envelope = task?.envelope;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>adapter-command</Text>{" "}
        {envelope ? (
          <Text>
            {envelope.adapter} · <Text color="cyan">{envelope.mode}</Text> · {request}
          </Text>
        ) : (
          <Text>echo · {request}</Text>
        )}
      </Text>
      {task?.workingDir ? <Text dimColor>in {task.workingDir}</Text> : null}
    </Box>
  );
}

export function OutputPane({ model, rows }: { model: ScreenModel; rows: number }) {
  const { lines, hidden } = visibleLines(model, rows);
  return (
    <Box flexDirection="column">
      {hidden > 0 ? (
        <Text dimColor>
          … {hidden} line{hidden === 1 ? "" : "s"} above
        </Text>
      ) : null}
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: lines have no identity but their place on screen
        <Text key={i} color={line.stream === "stderr" ? "yellow" : undefined} wrap="truncate-end">
          {line.stream === "stderr" ? "│ " : "  "}
          {line.text}
        </Text>
      ))}
    </Box>
  );
}

const BAR = 20;

export function StatusLine({ task, now }: { task: TaskView | undefined; now: number }) {
  if (!task) return <Text dimColor>starting…</Text>;
  const started = task.startedAt ? Date.parse(task.startedAt) : now;
  const deadline = task.deadline ? Date.parse(task.deadline) : undefined;
  const elapsed = now - started;
  let bar = "";
  if (deadline !== undefined && deadline > started) {
    // The clock tick may be a little older than startedAt, and the task may outlive its deadline: clamp to 0..1.
    const done = Math.min(1, Math.max(0, elapsed / (deadline - started)));
    const filled = Math.round(done * BAR);
    bar = ` ${"█".repeat(filled)}${"░".repeat(BAR - filled)} ${formatDuration(deadline - now)} left`;
  }
  const colour = task.state === "input-required" ? "magenta" : "blue";
  return (
    <Text>
      <Text color={colour} bold>
        {task.state}
      </Text>{" "}
      {formatDuration(elapsed)}
      <Text dimColor>{bar}</Text>
    </Text>
  );
}

export function PromptBox({
  prompt,
  onAnswer,
  error,
}: {
  prompt: string;
  onAnswer(text: string): void;
  error?: string | undefined;
}) {
  const style = answerStyle(prompt);
  const [typed, setTyped] = useState("");
  useInput((input, key) => {
    if (key.ctrl) return;
    if (style.kind === "yes-no") {
      const lower = input.toLowerCase();
      if (lower === "y") onAnswer(style.yes);
      else if (lower === "n") onAnswer(style.no);
      else if (key.return && style.enter !== undefined) onAnswer(style.enter);
      return;
    }
    if (key.return) {
      onAnswer(typed);
      setTyped("");
    } else if (key.backspace || key.delete) setTyped((t) => t.slice(0, -1));
    else if (input && !key.meta && !key.escape && !key.tab && !key.upArrow && !key.downArrow)
      setTyped((t) => (t + input).slice(0, 4096));
  });
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold>{prompt}</Text>
      {style.kind === "yes-no" ? (
        <Text dimColor>
          press {style.yes === "y" ? "y" : "y (yes)"} or {style.no === "n" ? "n" : "n (no)"}
          {style.enter !== undefined ? `; Enter sends "${style.enter}"` : ""}
        </Text>
      ) : (
        <Text>
          <Text color="magenta">› </Text>
          {typed}
          <Text inverse> </Text>
        </Text>
      )}
      {error ? <Text color="red">{error}</Text> : null}
    </Box>
  );
}

export function Summary({ task, bytes }: { task: TaskView; bytes: number }) {
  const ok = task.state === "completed";
  const duration = task.startedAt && task.endedAt ? Date.parse(task.endedAt) - Date.parse(task.startedAt) : 0;
  const how =
    task.exitCode !== null ? `exit code ${task.exitCode}` : task.signal ? `signal ${task.signal}` : "no exit code";
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text>
        <Text color={ok ? "green" : task.state === "canceled" ? "yellow" : "red"} bold>
          {ok ? "✔" : "✘"} {task.state}
        </Text>{" "}
        · {how} · {formatDuration(duration)} · {formatBytes(bytes)} of output
      </Text>
      {task.state === "failed" ? (
        <Text color="red">
          {task.failKind === "infrastructure" ? "infrastructure failure" : "application failure"}
          {task.reason === "timeout" ? " (deadline)" : ""}: {task.statusText}
        </Text>
      ) : null}
    </Box>
  );
}

export function RunScreen({ model, request, now, rows, onAnswer, onCancel }: ScreenProps) {
  const task = model.task;
  const ended = task && (task.state === "completed" || task.state === "failed" || task.state === "canceled");
  useInput((input, key) => {
    if (key.ctrl && input === "c") onCancel();
  });
  return (
    <Box flexDirection="column">
      <Header task={task} request={request} />
      <OutputPane model={model} rows={rows} />
      {model.answers.map((a, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: answers are only ever appended
        <Text key={i} dimColor>
          » answered {JSON.stringify(a.text)} to {a.prompt}
        </Text>
      ))}
      {task?.state === "input-required" && task.prompt ? (
        <PromptBox key={task.prompt.id} prompt={task.prompt.text} onAnswer={onAnswer} error={model.error} />
      ) : model.error ? (
        <Text color="red">{model.error}</Text>
      ) : null}
      {ended ? <Summary task={task} bytes={model.bytes} /> : <StatusLine task={task} now={now} />}
    </Box>
  );
}
