// The run screen as rendered frames (CONTRACT section 6): the envelope, live output with stderr told apart, the
// state with elapsed and remaining time, the prompt box and its keys, Ctrl-C, and the summary at the end.
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { cleanup, render } from "ink-testing-library";
import type { Envelope } from "../../src/core/envelope.js";
import type { StreamName } from "../../src/core/output-log.js";
import type { TaskView } from "../../src/core/task-record.js";
import { Header, OutputPane, PromptBox, RunScreen, StatusLine, Summary } from "../../src/ui/ink/components.js";
import { ModelStore } from "../../src/ui/ink/run-ink.js";
import { emptyModel, reduce, type ScreenModel } from "../../src/ui/screen-model.js";
import { output, taskView } from "../helpers/events.js";

const REQUEST = ".aiwg/ops/runs/assess-confirm.json";
const WORKING_DIR = "/tmp/ws/project-one";
const STARTED = Date.parse("2025-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

const ENVELOPE: Envelope = {
  adapter: "sandbox-agent-runner",
  mode: "assess",
  command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", REQUEST],
  working_dir: "/workspace",
  timeout_seconds: 120,
  input_mode: "text-line",
};

function task(overrides: Partial<TaskView> = {}): TaskView {
  return taskView({
    updatedAt: iso(STARTED + 1000),
    createdAt: iso(STARTED - 100),
    startedAt: iso(STARTED),
    deadline: iso(STARTED + 120_000),
    envelope: ENVELOPE,
    workingDir: WORKING_DIR,
    timeoutSeconds: 120,
    textLine: true,
    ...overrides,
  });
}

function prompting(text: string, overrides: Partial<TaskView> = {}): TaskView {
  return task({
    state: "input-required",
    prompt: { id: `prompt-${text.length}`, text, deadline: iso(STARTED + 120_000), allowedResponders: ["any"] },
    ...overrides,
  });
}

function ended(overrides: Partial<TaskView>): TaskView {
  return task({ endedAt: iso(STARTED + 65_000), updatedAt: iso(STARTED + 65_000), ...overrides });
}

/** A model built the way the live screen builds it: a status event, then the output chunks. */
function modelOf(view: TaskView | undefined, chunks: Array<string | [string, StreamName]> = []): ScreenModel {
  let model = emptyModel();
  if (view) model = reduce(model, { type: "status", task: view });
  for (const chunk of chunks) {
    model = typeof chunk === "string" ? reduce(model, output(chunk)) : reduce(model, output(chunk[0], chunk[1]));
  }
  return model;
}

const tick = (ms = 50) => new Promise((resolve) => setTimeout(resolve, ms));

/** The last frame, which must be a real one: undefined or blank fails the test. */
function frameOf(lastFrame: () => string | undefined): string {
  const frame = lastFrame();
  assert.equal(typeof frame, "string", "nothing was rendered");
  assert.ok((frame as string).trim().length > 0, "the frame is empty");
  return frame as string;
}

const linesOf = (frame: string) => frame.split("\n");

/** The index of the first line that contains `text`; fails when there is none. */
function lineIndex(frame: string, text: string): number {
  const index = linesOf(frame).findIndex((line) => line.includes(text));
  assert.notEqual(index, -1, `no line with ${JSON.stringify(text)} in:\n${frame}`);
  return index;
}

function includes(frame: string, text: string): void {
  assert.ok(frame.includes(text), `expected ${JSON.stringify(text)} in the frame:\n${frame}`);
}

function excludes(frame: string, text: string): void {
  assert.ok(!frame.includes(text), `did not expect ${JSON.stringify(text)} in the frame:\n${frame}`);
}

interface Calls {
  answers: string[];
  cancels: number;
}

function screen(model: ScreenModel, options: { rows?: number; now?: number } = {}) {
  const calls: Calls = { answers: [], cancels: 0 };
  const props = {
    model,
    request: REQUEST,
    now: options.now ?? STARTED + 2000,
    rows: options.rows ?? 10,
    onAnswer: (text: string) => calls.answers.push(text),
    onCancel: () => {
      calls.cancels += 1;
    },
  };
  const instance = render(<RunScreen {...props} />);
  return {
    ...instance,
    calls,
    frame: () => frameOf(instance.lastFrame),
    update: (next: ScreenModel, now = props.now) => instance.rerender(<RunScreen {...props} model={next} now={now} />),
  };
}

/** Writes keys one at a time, letting the input handlers run after each. */
async function press(stdin: { write(data: string): void }, ...keys: string[]): Promise<void> {
  await tick();
  for (const key of keys) {
    stdin.write(key);
    await tick();
  }
}

afterEach(() => cleanup());

describe("Header", () => {
  it("shows the adapter, the mode, the request and the working directory", () => {
    const { lastFrame } = render(<Header task={task()} request={REQUEST} />);
    const frame = frameOf(lastFrame);
    includes(frame, "adapter-command");
    includes(frame, "sandbox-agent-runner");
    includes(frame, "assess");
    includes(frame, REQUEST);
    includes(frame, WORKING_DIR);
  });

  it("before the first status event, shows the request alone", () => {
    const { lastFrame } = render(<Header task={undefined} request="envelope.json" />);
    const frame = frameOf(lastFrame);
    includes(frame, "envelope.json");
  });
});

describe("RunScreen while working", () => {
  it("shows the header on top: adapter, mode, request, working directory", () => {
    const { frame } = screen(modelOf(task(), ["Assessing:\n"]));
    const shown = frame();
    const top = linesOf(shown).slice(0, 2).join("\n");
    includes(top, "sandbox-agent-runner");
    includes(top, "assess");
    includes(top, REQUEST);
    includes(top, WORKING_DIR);
  });

  it("shows output lines, joined across chunks, and marks stderr lines with │", () => {
    const { frame } = screen(
      modelOf(task(), ["Assess", "ing the cycle:\n", ["warning: slow disk\n", "stderr"], "check one ... ok\n"]),
    );
    const shown = frame();
    const assessing = lineIndex(shown, "Assessing the cycle:");
    const warning = lineIndex(shown, "warning: slow disk");
    const check = lineIndex(shown, "check one ... ok");
    assert.ok(assessing < warning && warning < check, `lines out of order:\n${shown}`);
    const lines = linesOf(shown);
    assert.match(lines[warning] as string, /│\s*warning: slow disk/);
    assert.doesNotMatch(lines[assessing] as string, /│/);
    assert.doesNotMatch(lines[check] as string, /│/);
  });

  it("shows a line still being written", () => {
    const { frame } = screen(modelOf(task(), ["done\nwaiting for the lock"]));
    includes(frame(), "waiting for the lock");
  });

  it("does not show escape sequences", () => {
    const { frame } = screen(modelOf(task(), ["\u001b[32mgreen\u001b[0m text\n"]));
    const shown = frame();
    includes(shown, "green text");
    excludes(shown, "[32m");
  });

  it("shows `… N lines above` when the output exceeds the rows, and the last lines", () => {
    const lines = Array.from({ length: 12 }, (_, i) => `out line ${i + 1}\n`).join("");
    const { frame } = screen(modelOf(task(), [lines]), { rows: 5 });
    const shown = frame();
    includes(shown, "… 7 lines above");
    for (let i = 8; i <= 12; i++) includes(shown, `out line ${i}`);
    assert.ok(!/out line 7\s*$/m.test(shown), `line 7 should be hidden:\n${shown}`);
    assert.ok(lineIndex(shown, "lines above") < lineIndex(shown, "out line 8"));
  });

  it("says `1 line above` for a single hidden line", () => {
    const { frame } = screen(modelOf(task(), ["a\nb\nc\n"]), { rows: 2 });
    includes(frame(), "… 1 line above");
  });

  it("counts the lines the model already dropped as above too", () => {
    let model = modelOf(task());
    for (let i = 1; i <= 6; i++) model = reduce(model, output(`n${i}\n`), 4);
    const { frame } = screen(model, { rows: 3 });
    const shown = frame();
    includes(shown, "… 3 lines above");
    includes(shown, "n6");
  });

  it("shows no `above` line when everything fits", () => {
    const { frame } = screen(modelOf(task(), ["one\ntwo\n"]), { rows: 5 });
    excludes(frame(), "above");
  });

  it("shows the state, the elapsed time and the time left to the deadline", () => {
    const { frame } = screen(modelOf(task(), ["x\n"]), { now: STARTED + 2000 });
    const shown = frame();
    const status = linesOf(shown)[lineIndex(shown, "working")] as string;
    assert.match(status, /working 2s/);
    assert.match(status, /1m58s left/);
  });

  it("advances the elapsed time as `now` moves", () => {
    const view = screen(modelOf(task()), { now: STARTED + 2000 });
    includes(view.frame(), "working 2s");
    view.update(modelOf(task()), STARTED + 75_000);
    const shown = view.frame();
    includes(shown, "working 1m15s");
    includes(shown, "45s left");
  });

  it("shows `starting…` before the first status event", () => {
    const { frame } = screen(emptyModel());
    includes(frame(), "starting…");
  });

  it("Ctrl-C calls onCancel", async () => {
    const { stdin, calls, frame } = screen(modelOf(task(), ["busy\n"]));
    frame();
    await press(stdin, "\u0003");
    assert.equal(calls.cancels, 1);
    assert.deepEqual(calls.answers, []);
  });

  it("plain keys do nothing while working", async () => {
    const { stdin, calls, frame } = screen(modelOf(task(), ["busy\n"]));
    frame();
    await press(stdin, "y", "n", "\r");
    assert.equal(calls.cancels, 0);
    assert.deepEqual(calls.answers, []);
  });

  it("shows model.error when no prompt is open", () => {
    const model = { ...modelOf(task(), ["x\n"]), error: "the command is no longer running" };
    const { frame } = screen(model);
    includes(frame(), "the command is no longer running");
  });
});

describe("RunScreen at input-required", () => {
  const PROMPT = "Apply these 3 changes? [y/N]";

  it("shows the prompt in a box with its hint, below the output", () => {
    const { frame } = screen(modelOf(prompting(PROMPT), ["check  one ... ok\n", PROMPT]));
    const shown = frame();
    const lines = linesOf(shown);
    const boxTop = lines.findIndex((line) => line.includes("╭"));
    const boxBottom = lines.findIndex((line) => line.includes("╰"));
    assert.ok(boxTop !== -1 && boxBottom > boxTop, `no box in:\n${shown}`);
    const inside = lines.slice(boxTop + 1, boxBottom);
    assert.ok(
      inside.some((line) => line.includes(PROMPT)),
      `the prompt is not in the box:\n${shown}`,
    );
    assert.ok(
      inside.some((line) => line.includes("press y or n") && line.includes('Enter sends "n"')),
      `the hint is not in the box:\n${shown}`,
    );
    assert.ok(lineIndex(shown, "check  one ... ok") < boxTop);
    assert.match(lines[lineIndex(shown, "input-required")] as string, /input-required/);
  });

  for (const [key, expected] of [
    ["y", "y"],
    ["n", "n"],
    ["Y", "y"],
    ["\r", "n"],
  ] as const) {
    it(`[y/N]: ${JSON.stringify(key)} calls onAnswer(${JSON.stringify(expected)}) at once`, async () => {
      const { stdin, calls, frame } = screen(modelOf(prompting(PROMPT)));
      frame();
      await press(stdin, key);
      assert.deepEqual(calls.answers, [expected]);
      assert.equal(calls.cancels, 0);
    });
  }

  it("[y/N]: other keys send nothing", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(PROMPT)));
    frame();
    await press(stdin, "x", "1", " ");
    assert.deepEqual(calls.answers, []);
  });

  it('[Y/n]: Enter calls onAnswer("y"), n calls onAnswer("n")', async () => {
    const first = screen(modelOf(prompting("Continue? [Y/n]")));
    includes(first.frame(), 'Enter sends "y"');
    await press(first.stdin, "\r");
    assert.deepEqual(first.calls.answers, ["y"]);
    first.unmount();

    const second = screen(modelOf(prompting("Continue? [Y/n]")));
    second.frame();
    await press(second.stdin, "n");
    assert.deepEqual(second.calls.answers, ["n"]);
  });

  it("[Y/N]: y answers, Enter sends nothing and the hint offers no Enter default", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting("Overwrite? [Y/N]")));
    const shown = frame();
    includes(shown, "press y or n");
    excludes(shown, "Enter sends");
    await press(stdin, "\r");
    assert.deepEqual(calls.answers, []);
    await press(stdin, "y");
    assert.deepEqual(calls.answers, ["y"]);
  });

  it("(yes/no): y sends the word yes, n the word no", async () => {
    const first = screen(modelOf(prompting("Do you want to proceed (yes/no)?")));
    first.frame();
    await press(first.stdin, "y");
    assert.deepEqual(first.calls.answers, ["yes"]);
    first.unmount();

    const second = screen(modelOf(prompting("Do you want to proceed (yes/no)?")));
    second.frame();
    await press(second.stdin, "n");
    assert.deepEqual(second.calls.answers, ["no"]);
  });

  for (const text of ["Press ENTER to continue", "Are you sure? type the name"]) {
    it(`a text prompt (${text}): typing abc, backspace, Enter calls onAnswer("ab")`, async () => {
      const { stdin, calls, frame } = screen(modelOf(prompting(text)));
      includes(frame(), text);
      includes(frame(), "›");
      await press(stdin, "a", "b", "c");
      assert.match(frame(), /› abc/);
      assert.deepEqual(calls.answers, [], "typing alone must not answer");
      await press(stdin, "\u007f");
      assert.match(frame(), /› ab(?!c)/);
      await press(stdin, "\r");
      assert.deepEqual(calls.answers, ["ab"]);
      assert.doesNotMatch(frame(), /› ab/, "the input line is cleared after sending");
    });
  }

  it("a text prompt: y and n are typed, not sent", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting("Are you sure? type the name")));
    frame();
    await press(stdin, "y", "n");
    assert.deepEqual(calls.answers, []);
    assert.match(frame(), /› yn/);
    await press(stdin, "\r");
    assert.deepEqual(calls.answers, ["yn"]);
  });

  it("a text prompt: Enter on an empty line sends the empty text", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting("Press ENTER to continue")));
    frame();
    await press(stdin, "\r");
    assert.deepEqual(calls.answers, [""]);
  });

  it("Ctrl-C at a prompt calls onCancel and answers nothing", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(PROMPT)));
    frame();
    await press(stdin, "\u0003");
    assert.equal(calls.cancels, 1);
    assert.deepEqual(calls.answers, []);
  });

  it("Ctrl-C at a text prompt does not type a c", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting("Press ENTER to continue")));
    frame();
    await press(stdin, "a", "\u0003", "\r");
    assert.equal(calls.cancels, 1);
    assert.deepEqual(calls.answers, ["a"]);
  });

  it("shows model.error inside the box, under the prompt", () => {
    const error = "that prompt is no longer open (the command printed more or it was answered)";
    const model = { ...modelOf(prompting(PROMPT)), error };
    const { frame } = screen(model);
    const shown = frame();
    const prompt = lineIndex(shown, PROMPT);
    const errorLine = lineIndex(shown, "that prompt is no longer open");
    const boxBottom = linesOf(shown).findIndex((line) => line.includes("╰"));
    assert.ok(prompt < errorLine, `the error is not under the prompt:\n${shown}`);
    assert.ok(errorLine < boxBottom, `the error is not in the box:\n${shown}`);
  });

  it("a new prompt (a new id) starts with an empty input line", async () => {
    const view = screen(modelOf(prompting("Press ENTER to continue")));
    view.frame();
    await press(view.stdin, "x", "y");
    assert.match(view.frame(), /› xy/);
    const next = prompting("Are you sure? type the name", {
      prompt: {
        id: "another",
        text: "Are you sure? type the name",
        deadline: iso(STARTED + 120_000),
        allowedResponders: ["any"],
      },
    });
    view.update(modelOf(next));
    await tick();
    const shown = view.frame();
    includes(shown, "Are you sure? type the name");
    assert.doesNotMatch(shown, /› xy/);
  });

  it("after the answer: the box goes away and the answer is echoed", () => {
    const view = screen(modelOf(prompting(PROMPT), [PROMPT]));
    includes(view.frame(), "press y or n");
    const answered = {
      ...modelOf(task({ state: "working" }), [PROMPT, " confirmed\n"]),
      answers: [{ prompt: PROMPT, text: "y" }],
    };
    view.update(answered);
    const shown = view.frame();
    excludes(shown, "press y or n");
    excludes(shown, "╭");
    includes(shown, `» answered "y" to ${PROMPT}`);
  });
});

describe("RunScreen at the end: the summary", () => {
  it("completed: ✔ completed, exit code 0, the duration and the bytes of output", () => {
    const text = "Assessing:\ncheck one ... ok\n";
    const { frame } = screen(modelOf(ended({ state: "completed", exitCode: 0 }), [text]));
    const shown = frame();
    const summary = linesOf(shown)[lineIndex(shown, "✔ completed")] as string;
    assert.match(summary, /exit code 0/);
    assert.match(summary, /1m05s/);
    assert.match(summary, new RegExp(`${Buffer.byteLength(text)} B of output`));
    excludes(shown, "left");
    excludes(shown, "failure");
  });

  it("the summary counts KiB of output", () => {
    const big = `${"x".repeat(2047)}\n`;
    const { frame } = screen(modelOf(ended({ state: "completed", exitCode: 0 }), [big]));
    includes(frame(), "2.0 KiB of output");
  });

  it("failed (the command exited non-zero): application failure with the status text", () => {
    const view = ended({
      state: "failed",
      exitCode: 3,
      failKind: "application",
      reason: "exit",
      statusText: "the command exited with code 3",
    });
    const { frame } = screen(modelOf(view, [["boom\n", "stderr"]]));
    const shown = frame();
    includes(shown, "✘ failed");
    includes(shown, "exit code 3");
    includes(shown, "application failure: the command exited with code 3");
    excludes(shown, "(deadline)");
    excludes(shown, "✔");
  });

  it("failed (timeout): application failure (deadline), the signal and the status text", () => {
    const view = ended({
      state: "failed",
      exitCode: null,
      signal: "SIGTERM",
      failKind: "application",
      reason: "timeout",
      statusText: "the command ran past its 120 s deadline",
    });
    const { frame } = screen(modelOf(view));
    const shown = frame();
    includes(shown, "✘ failed");
    includes(shown, "signal SIGTERM");
    includes(shown, "application failure (deadline): the command ran past its 120 s deadline");
  });

  it("failed (infrastructure): infrastructure failure with the status text", () => {
    const view = ended({
      state: "failed",
      exitCode: null,
      failKind: "infrastructure",
      reason: "spawn_failed",
      statusText: "could not start node: ENOENT",
    });
    const { frame } = screen(modelOf(view));
    const shown = frame();
    includes(shown, "infrastructure failure: could not start node: ENOENT");
    includes(shown, "no exit code");
    excludes(shown, "application failure");
  });

  it("canceled: ✘ canceled, no failure line", () => {
    const view = ended({ state: "canceled", exitCode: null, signal: "SIGTERM", reason: "canceled" });
    const { frame } = screen(modelOf(view, ["hanging\n"]));
    const shown = frame();
    includes(shown, "✘ canceled");
    includes(shown, "signal SIGTERM");
    excludes(shown, "failure");
    includes(shown, "hanging");
  });

  it("keeps the header and the output above the summary", () => {
    const { frame } = screen(modelOf(ended({ state: "completed", exitCode: 0 }), ["last line\n"]));
    const shown = frame();
    assert.ok(lineIndex(shown, REQUEST) < lineIndex(shown, "last line"));
    assert.ok(lineIndex(shown, "last line") < lineIndex(shown, "✔ completed"));
  });
});

describe("the parts on their own", () => {
  it("OutputPane marks stderr and not stdout", () => {
    const { lastFrame } = render(<OutputPane model={modelOf(task(), ["o\n", ["e\n", "stderr"]])} rows={5} />);
    const lines = linesOf(frameOf(lastFrame));
    assert.match(lines.find((line) => line.includes("e")) as string, /^│ e/);
    assert.match(lines.find((line) => line.includes("o")) as string, /^ {2}o/);
  });

  it("StatusLine without a deadline shows no bar", () => {
    const view = task();
    delete view.deadline;
    const { lastFrame } = render(<StatusLine task={view} now={STARTED + 3000} />);
    const frame = frameOf(lastFrame);
    includes(frame, "working 3s");
    excludes(frame, "left");
  });

  it("StatusLine with a clock tick older than the start, or past the deadline, still draws its bar", () => {
    const short = task({ deadline: new Date(STARTED + 1000).toISOString() });
    const early = frameOf(render(<StatusLine task={short} now={STARTED - 200} />).lastFrame);
    includes(early, `${"░".repeat(20)} 1s left`);
    const late = frameOf(render(<StatusLine task={short} now={STARTED + 5000} />).lastFrame);
    includes(late, `${"█".repeat(20)} 0s left`);
  });

  it("PromptBox (yes/no) names the words it sends", () => {
    const { lastFrame } = render(<PromptBox prompt="Proceed (yes/no)" onAnswer={() => {}} />);
    const frame = frameOf(lastFrame);
    includes(frame, "y (yes)");
    includes(frame, "n (no)");
  });

  it("Summary on its own", () => {
    const { lastFrame } = render(<Summary task={ended({ state: "completed", exitCode: 0 })} bytes={0} />);
    const frame = frameOf(lastFrame);
    includes(frame, "✔ completed");
    includes(frame, "0 B of output");
  });
});

describe("ModelStore", () => {
  it("a status event reaches the listeners at once", () => {
    const store = new ModelStore(1000);
    let heard = 0;
    store.subscribe(() => {
      heard += 1;
    });
    store.dispatch({ type: "status", task: task() });
    assert.equal(heard, 1);
    assert.equal(store.get().task?.state, "working");
  });

  it("output is batched: one notification for a burst, after the interval", async () => {
    const store = new ModelStore(20);
    let heard = 0;
    store.subscribe(() => {
      heard += 1;
    });
    store.dispatch(output("a\n"));
    store.dispatch(output("b\n"));
    store.dispatch(output("c\n"));
    assert.equal(heard, 0);
    assert.deepEqual(
      store.get().lines.map((line) => line.text),
      ["a", "b", "c"],
    );
    await tick(80);
    assert.equal(heard, 1);
  });

  it("answered echoes the answer and clears the error; failed sets the error", () => {
    const store = new ModelStore(1000);
    let heard = 0;
    const off = store.subscribe(() => {
      heard += 1;
    });
    store.failed("the command is no longer running");
    assert.equal(store.get().error, "the command is no longer running");
    store.answered("Continue? [Y/n]", "y");
    assert.equal(store.get().error, undefined);
    assert.deepEqual(store.get().answers, [{ prompt: "Continue? [Y/n]", text: "y" }]);
    assert.equal(heard, 2);
    off();
    store.failed("again");
    assert.equal(heard, 2);
  });
});
