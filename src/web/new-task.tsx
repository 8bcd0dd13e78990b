// "New task": an envelope or a whole input file is pasted, checked in the page by the rules of `validate` (the
// validator of src/core is bundled into the page), its problems shown at their fields, then sent and followed
// (CONTRACT section 10). Problems the server finds (a working_dir that escapes the workspace, say) are shown the same
// way. What the page cannot check is the workspace on disk: the server does that when the task is sent.
import { useEffect, useRef, useState } from "preact/hooks";
import { analyzeText } from "../a2a/input-file.js";
import { readablePath } from "../core/envelope/json-pointer.js";
import type { Problem } from "../core/envelope/problems.js";
import { ADAPTER_URI } from "../core/uris.js";
import { type Api, ApiError, newId } from "./api.js";
import { pastedPointer, sendBody } from "./send-body.js";

// The plan `npm start` runs: its request file ships in examples/workspace, so the first Send against the bundled
// workspace completes as it is (test/e2e/console.test.ts, "the default New task").
const EXAMPLE = `{
  "adapter": "sandbox-agent-runner",
  "mode": "plan",
  "command": [
    "node",
    ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
    "--request",
    ".aiwg/ops/adapters/sandbox-agent-runner/examples/cycle-005-request.json"
  ],
  "timeout_seconds": 60
}`;

interface Verdict {
  /** The text this verdict is about. */
  text: string;
  valid: boolean;
  dispatch?: string;
  problems: Problem[];
  /** Problems the server gave for the last send. */
  fromServer?: boolean;
}

function check(text: string): Verdict {
  const { analysis } = analyzeText(text);
  return analysis.valid
    ? { text, valid: true, dispatch: analysis.dispatch, problems: [] }
    : { text, valid: false, ...(analysis.dispatch ? { dispatch: analysis.dispatch } : {}), problems: analysis.errors };
}

/** The offset of a 1-based line and column (columns in characters, as the validator counts them). */
function offsetOf(text: string, line: number, column: number): number {
  let at = 0;
  for (let n = 1; n < line; n++) {
    const nl = text.indexOf("\n", at);
    if (nl < 0) return text.length;
    at = nl + 1;
  }
  let chars = 0;
  let offset = at;
  for (const char of text.slice(at)) {
    if (++chars >= column || char === "\n") break;
    offset += char.length;
  }
  return offset;
}

function fieldName(path: string): string {
  return path === "" ? "the file as a whole" : readablePath(path, ADAPTER_URI) || path;
}

function Problems({ verdict, onShow }: { verdict: Verdict; onShow: (problem: Problem) => void }) {
  const groups = new Map<string, Problem[]>();
  for (const problem of verdict.problems) groups.set(problem.path, [...(groups.get(problem.path) ?? []), problem]);
  return (
    <div class="problems" role="alert" aria-label="Problems">
      <p>
        {verdict.fromServer ? "The server refused it" : "Not valid"}: {verdict.problems.length} problem
        {verdict.problems.length === 1 ? "" : "s"}.
      </p>
      <ul>
        {[...groups].map(([path, problems]) => (
          <li key={path} class="field-problems" data-field={path}>
            <strong class="field-name">{fieldName(path)}</strong>
            <ul>
              {problems.map((problem) => (
                <li key={`${problem.code}-${problem.message}`} data-code={problem.code}>
                  {problem.message} <code class="muted">[{problem.code}]</code>
                  {problem.line !== undefined ? (
                    <button type="button" class="link" onClick={() => onShow(problem)}>
                      line {problem.line}, column {problem.column}
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function NewTask({ api, onSent }: { api: Api; onSent: (id: string) => void }) {
  const [text, setText] = useState(EXAMPLE);
  const [messageText, setMessageText] = useState("");
  const [verdict, setVerdict] = useState<Verdict | undefined>();
  const [sending, setSending] = useState(false);
  const [failure, setFailure] = useState<string | undefined>();
  const area = useRef<HTMLTextAreaElement>(null);

  // Checked as it is typed, a moment after the last key (a verdict on this very text, the server's, is kept).
  useEffect(() => {
    const timer = setTimeout(() => setVerdict((verdict) => (verdict?.text === text ? verdict : check(text))), 250);
    return () => clearTimeout(timer);
  }, [text]);

  const show = (problem: Problem) => {
    const element = area.current;
    if (!element || problem.line === undefined) return;
    const at = offsetOf(text, problem.line, problem.column ?? 1);
    element.focus();
    element.setSelectionRange(at, at);
  };

  const send = async () => {
    setFailure(undefined);
    const now = check(text);
    setVerdict(now);
    if (!now.valid) return;
    const { body, prefix } = sendBody(JSON.parse(text.replace(/^\uFEFF/, "")), messageText, newId());
    setSending(true);
    try {
      const answer = await api.sendMessage(body);
      const task = (answer as { task?: { id?: string } }).task;
      if (task?.id) onSent(task.id);
      else setFailure("The server answered without a task.");
    } catch (error) {
      if (error instanceof ApiError && error.violations.length > 0) {
        const { locate } = analyzeText(text);
        setVerdict({
          text,
          valid: false,
          fromServer: true,
          problems: error.violations.map((violation) =>
            locate({
              path: pastedPointer(violation.field, prefix),
              code: violation.reason,
              message: violation.description,
            }),
          ),
        });
      } else setFailure(`Not sent: ${(error as Error).message}`);
    } finally {
      setSending(false);
    }
  };

  return (
    <section class="new-task" aria-labelledby="new-title">
      <h2 id="new-title">New task</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send();
        }}
      >
        <label for="new-input">Envelope or input file (JSON, as validate takes it)</label>
        <textarea
          id="new-input"
          ref={area}
          rows={12}
          spellcheck={false}
          value={text}
          aria-invalid={verdict && !verdict.valid ? "true" : "false"}
          aria-describedby="new-verdict"
          onInput={(event) => setText((event.target as HTMLTextAreaElement).value)}
        />
        <label for="new-message">Message text (for a bare envelope: what the command gets as AIWG_A2A_MESSAGE)</label>
        <input
          id="new-message"
          value={messageText}
          autoComplete="off"
          onInput={(event) => setMessageText((event.target as HTMLInputElement).value)}
        />
        <div class="actions">
          <button type="button" onClick={() => setVerdict(check(text))}>
            Check
          </button>
          <button type="submit" class="primary" disabled={sending}>
            Send and follow
          </button>
        </div>
      </form>
      <div id="new-verdict">
        {verdict?.valid ? (
          <p class="note ok" role="status">
            <span aria-hidden="true">✓ </span>Valid ({verdict.dispatch === "echo" ? "echo dispatch" : "adapter command"}
            ).
          </p>
        ) : null}
        {verdict && !verdict.valid ? <Problems verdict={verdict} onShow={show} /> : null}
        {failure ? (
          <p class="note problem" role="alert">
            {failure}
          </p>
        ) : null}
      </div>
    </section>
  );
}
