// One task (CONTRACT section 10): its state, envelope, elapsed time and deadline, its output as it arrives, the open
// prompt with an answer box and y / n buttons, cancel, and at the end the fail kind and reason.
import { useEffect, useRef, useState } from "preact/hooks";
import { type Api, ApiError, newId } from "./api.js";
import { useNow } from "./hooks.js";
import { OutputView } from "./output-view.js";
import { envelopeOf, type OpenPrompt, openPrompt, runInfo, type Task } from "./task-fields.js";
import { TaskFollower } from "./task-follower.js";
import { answerRefusal, duration, stateOf } from "./words.js";

export function StateBadge({ state }: { state: string }) {
  const shown = stateOf(state);
  return (
    <span class={`badge state-${shown.word.replace(/ /g, "-")}`}>
      <span aria-hidden="true">{shown.mark} </span>
      {shown.word}
    </span>
  );
}

function Times({ task, now }: { task: Task; now: number }) {
  const info = runInfo(task);
  const started = Date.parse(String(info.started_at ?? ""));
  const ended = Date.parse(String(info.ended_at ?? ""));
  const deadline = Date.parse(String(info.deadline ?? ""));
  const over = stateOf(task.status.state).ended;
  return (
    <dl class="facts">
      <dt>Elapsed</dt>
      <dd data-field="elapsed">
        {Number.isNaN(started) ? "not started" : duration((Number.isNaN(ended) ? now : ended) - started)}
      </dd>
      <dt>Deadline</dt>
      <dd data-field="deadline">
        {Number.isNaN(deadline)
          ? "none yet"
          : over
            ? new Date(deadline).toLocaleTimeString()
            : deadline > now
              ? `in ${duration(deadline - now)} (${new Date(deadline).toLocaleTimeString()})`
              : "passed"}
      </dd>
    </dl>
  );
}

function Ending({ task }: { task: Task }) {
  const info = runInfo(task);
  const state = stateOf(task.status.state);
  if (!state.ended) return null;
  const facts: [string, unknown][] = [
    ["Exit code", info.exit_code],
    ["Signal", info.signal],
    ["Fail kind", info.fail_kind],
    ["Reason", info.reason],
  ];
  return (
    <dl class="facts ending" aria-label="How the task ended">
      {facts
        .filter(([, value]) => value !== null && value !== undefined)
        .map(([name, value]) => [
          <dt key={`${name}-t`}>{name}</dt>,
          <dd key={`${name}-d`} data-field={name.toLowerCase().replace(/ /g, "_")}>
            {String(value)}
          </dd>,
        ])}
    </dl>
  );
}

function PromptBox({ api, task, prompt, now }: { api: Api; task: Task; prompt: OpenPrompt; now: number }) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [result, setResult] = useState<{ ok: boolean; words: string } | undefined>();
  const input = useRef<HTMLInputElement>(null);

  const answer = async (value: string) => {
    setSending(true);
    setResult(undefined);
    try {
      await api.sendMessage({
        message: {
          messageId: newId(),
          role: "ROLE_USER",
          taskId: task.id,
          contextId: task.contextId,
          parts: [{ text: value }],
          metadata: { hitl_response_for: { prompt_id: prompt.promptId, payload: { text: value } } },
        },
        configuration: { returnImmediately: true },
      });
      setResult({ ok: true, words: `Answer "${value}" delivered.` });
    } catch (error) {
      setResult({ ok: false, words: error instanceof ApiError ? answerRefusal(error) : String(error) });
    } finally {
      setSending(false);
    }
  };
  const deadline = prompt.deadline ? Date.parse(prompt.deadline) : Number.NaN;
  return (
    <section class="prompt" aria-labelledby="prompt-title">
      <h3 id="prompt-title">The command asks</h3>
      <p class="prompt-text">{prompt.prompt}</p>
      {Number.isNaN(deadline) ? null : (
        <p class="muted">
          {deadline > now ? `Answer within ${duration(deadline - now)}.` : "The deadline has passed."}
        </p>
      )}
      <form
        class="answer"
        onSubmit={(event) => {
          event.preventDefault();
          void answer(text);
        }}
      >
        <label for="answer-text">Answer</label>
        <input
          id="answer-text"
          ref={input}
          value={text}
          maxLength={4096}
          autoComplete="off"
          onInput={(event) => setText((event.target as HTMLInputElement).value)}
        />
        <button type="submit" disabled={sending}>
          Send answer
        </button>
        <button type="button" disabled={sending} onClick={() => void answer("y")} aria-label="Answer y (yes)">
          y
        </button>
        <button type="button" disabled={sending} onClick={() => void answer("n")} aria-label="Answer n (no)">
          n
        </button>
      </form>
      {result ? (
        <p class={result.ok ? "note ok" : "note problem"} role={result.ok ? "status" : "alert"}>
          {result.words}
        </p>
      ) : null}
    </section>
  );
}

function CancelButton({ api, task }: { api: Api; task: Task }) {
  const [words, setWords] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const cancel = async () => {
    setBusy(true);
    try {
      await api.json("POST", `/a2a/rest/tasks/${encodeURIComponent(task.id)}:cancel`, {});
      setWords(undefined);
    } catch (error) {
      setWords(
        error instanceof ApiError && error.status === "FAILED_PRECONDITION"
          ? "Not canceled: the task has already ended or is ending."
          : `Not canceled: ${(error as Error).message}`,
      );
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <button type="button" class="danger" disabled={busy} onClick={() => void cancel()}>
        Cancel task
      </button>
      {words ? (
        <p class="note problem" role="alert">
          {words}
        </p>
      ) : null}
    </>
  );
}

export function TaskView({ api, id }: { api: Api; id: string }) {
  const [, redraw] = useState(0);
  const follower = useRef<TaskFollower | undefined>(undefined);
  if (!follower.current || follower.current.id !== id) {
    follower.current?.stop();
    follower.current = new TaskFollower(api, id, () => redraw((n) => n + 1));
  }
  useEffect(() => () => follower.current?.stop(), []);
  const { task, output, error, dropped } = follower.current;
  const running = task !== undefined && !stateOf(task.status.state).ended;
  const now = useNow(running);
  if (!task)
    return (
      <section class="task" aria-busy={error ? "false" : "true"}>
        <h2>Task {id}</h2>
        <p class={error ? "note problem" : "muted"} role={error ? "alert" : undefined}>
          {error ?? "Loading…"}
        </p>
      </section>
    );
  const envelope = envelopeOf(task);
  const prompt = openPrompt(task);
  return (
    <section class="task" aria-labelledby="task-title">
      <div class="task-head">
        <h2 id="task-title">
          Task <code>{task.id}</code>
        </h2>
        <p role="status" data-field="state">
          <StateBadge state={task.status.state} />
          {follower.current.following ? <span class="muted"> · live</span> : null}
        </p>
        {running ? <CancelButton api={api} task={task} /> : null}
      </div>
      <Times task={task} now={now} />
      <Ending task={task} />
      {error ? (
        <p class="note problem" role="alert">
          {error}
        </p>
      ) : null}
      {/* A new prompt gets a new box, clean: keyed by its id, not cleared by an effect after it is shown, which on a
          slow machine could wipe what was typed and answered in the meantime. */}
      {prompt ? <PromptBox key={prompt.promptId} api={api} task={task} prompt={prompt} now={now} /> : null}
      <h3>Output</h3>
      {dropped > 0 ? (
        <p class="muted">
          {dropped} bytes of the middle of the output were dropped by the server's limit; the start and the most recent
          output are shown.
        </p>
      ) : null}
      {output.dropped > 0 ? <p class="muted">{output.dropped} earlier lines are no longer kept by this page.</p> : null}
      <OutputView output={output} version={output.version} />
      <details class="envelope" open>
        <summary>Envelope</summary>
        {envelope ? <pre>{JSON.stringify(envelope, null, 2)}</pre> : <p>No envelope: echo dispatch.</p>}
        <p class="muted">
          Context <code>{task.contextId}</code>
        </p>
      </details>
    </section>
  );
}
