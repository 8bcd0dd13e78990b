// The run screen's live area as rendered frames (CONTRACT section 6): the line still being written, the state with
// elapsed and remaining time and what Ctrl-C does, the prompt box and its input line, key by key and in bursts; and
// the model store that hands finished lines to the scrollback. (The header, the finished lines and the summary are
// written above the live area: test/unit/scrollback.test.ts.)
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { stripVTControlCharacters } from "node:util";
import { cleanup, render } from "ink-testing-library";
import type { StreamName } from "../../src/core/task/output-log.js";
import type { TaskView } from "../../src/core/task/task-record.js";
import { LiveArea, PartialLine, PromptBox, StatusLine } from "../../src/ui/ink/components.js";
import { ModelStore } from "../../src/ui/model-store.js";
import { emptyModel, reduce, type ScreenModel, type ScrollLine } from "../../src/ui/screen-model.js";
import { ASSESS_ENVELOPE, output, taskView } from "../helpers/events.js";

const ENVELOPE = ASSESS_ENVELOPE;
const WORKING_DIR = "/tmp/ws/project-one";
const STARTED = Date.parse("2025-01-01T00:00:00.000Z");
const iso = (ms: number) => new Date(ms).toISOString();

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
/** The frame as read on the screen: where stdout is a terminal, ink colours it, and the colours are not the text. */
function frameOf(lastFrame: () => string | undefined): string {
  const frame = lastFrame();
  assert.equal(typeof frame, "string", "nothing was rendered");
  const text = stripVTControlCharacters(frame as string);
  assert.ok(text.trim().length > 0, "the frame is empty");
  return text;
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

/**
 * The live area for `model`. Answers are recorded and accepted, unless `accept` says otherwise (a refused answer:
 * the prompt box takes keys again).
 */
function screen(model: ScreenModel, options: { now?: number; columns?: number; accept?: boolean } = {}) {
  const calls: Calls = { answers: [], cancels: 0 };
  const props = {
    model,
    now: options.now ?? STARTED + 2000,
    columns: options.columns ?? 100,
    onAnswer: (text: string) => {
      calls.answers.push(text);
      return Promise.resolve(options.accept ?? true);
    },
    onInterrupt: () => {
      calls.cancels += 1;
    },
  };
  const instance = render(<LiveArea {...props} />);
  return {
    ...instance,
    calls,
    frame: () => frameOf(instance.lastFrame),
    update: (next: ScreenModel, now = props.now) => instance.rerender(<LiveArea {...props} model={next} now={now} />),
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

describe("LiveArea while working", () => {
  it("shows a line still being written, not the finished ones (they went to the scrollback)", () => {
    const { frame } = screen(modelOf(task(), ["done\nwaiting for the lock"]));
    includes(frame(), "waiting for the lock");
    excludes(frame(), "done");
  });

  it("shows the end of a long line still being written, on one row", () => {
    const { frame } = screen(modelOf(task(), [`${"a".repeat(300)}THE END`]), { columns: 60 });
    const shown = frame();
    includes(shown, "THE END");
    assert.equal(linesOf(shown).filter((line) => line.includes("aaaa")).length, 1, shown);
  });

  it("marks a stderr line still being written with │", () => {
    const { frame } = screen(modelOf(task(), [["warn: slow", "stderr"]]));
    assert.match(frame(), /│ warn: slow/);
  });

  it("does not show escape sequences", () => {
    const { frame, lastFrame } = screen(modelOf(task(), ["\u001b[32mgreen\u001b[0m text"]));
    includes(frame(), "green text");
    // The raw frame: the runner's own colour is gone, whatever colours ink adds around it.
    excludes(lastFrame() ?? "", "\u001b[32mgreen");
  });

  it("shows the state, the elapsed time, the time left to the deadline, and that Ctrl-C cancels", () => {
    const { frame } = screen(modelOf(task(), ["x\n"]), { now: STARTED + 2000 });
    const shown = frame();
    const status = linesOf(shown)[lineIndex(shown, "working")] as string;
    assert.match(status, /working 2s/);
    assert.match(status, /1m58s left/);
    assert.match(status, /Ctrl-C cancels/);
  });

  it("after one Ctrl-C, says a second one kills the command at once", () => {
    const { frame } = screen({ ...modelOf(task()), interrupts: 1 });
    includes(frame(), "canceling… Ctrl-C again kills it now");
    excludes(frame(), "Ctrl-C cancels");
  });

  it("advances the elapsed time as `now` moves", () => {
    const view = screen(modelOf(task()), { now: STARTED + 2000 });
    includes(view.frame(), "working 2s");
    view.update(modelOf(task()), STARTED + 75_000);
    const shown = view.frame();
    includes(shown, "working 1m15s");
    includes(shown, "45s left");
  });

  it("the time left is rounded up: 0s only once the deadline has come", () => {
    const view = screen(modelOf(task()), { now: STARTED + 119_400 });
    includes(view.frame(), " 1s left");
  });

  it("shows `starting…` before the first status event", () => {
    const { frame } = screen(emptyModel());
    includes(frame(), "starting…");
  });

  it("Ctrl-C calls onInterrupt", async () => {
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

  it("a live area whose task ends draws nothing, and renders no error on the way", () => {
    const view = screen(modelOf(task(), ["busy\n"]));
    includes(view.frame(), "working");
    view.update(modelOf(task({ state: "completed", exitCode: 0 }), ["busy\n"]));
    assert.equal(view.lastFrame()?.trim() ?? "", "");
  });

  it("draws nothing once the task has ended (the summary is written above)", () => {
    const { lastFrame } = screen(modelOf(task({ state: "completed", exitCode: 0 }), ["last\n"]));
    assert.equal(lastFrame()?.trim() ?? "", "");
  });
});

describe("LiveArea at input-required", () => {
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
    // The finished line went to the scrollback; the prompt line, still open, is above the box.
    excludes(shown, "check  one ... ok");
    assert.ok(lineIndex(shown, PROMPT) < boxTop);
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

  it("after the answer: the box goes away", () => {
    const view = screen(modelOf(prompting(PROMPT), [PROMPT]));
    includes(view.frame(), "press y or n");
    view.update(modelOf(task({ state: "working" }), [PROMPT, " confirmed\n"]));
    const shown = view.frame();
    excludes(shown, "press y or n");
    excludes(shown, "╭");
  });

  it("keys typed at the question before it is a prompt answer it once it is one", async () => {
    const view = screen(modelOf(task(), ["check  one ... ok\n", PROMPT]));
    view.frame();
    await press(view.stdin, "y");
    assert.deepEqual(view.calls.answers, [], "nothing is sent while the task is working");
    view.update(modelOf(prompting(PROMPT), ["check  one ... ok\n", PROMPT]));
    await tick();
    assert.deepEqual(view.calls.answers, ["y"]);
  });

  it("a text prompt takes the line typed ahead as its input, and Enter sends it", async () => {
    const view = screen(modelOf(task(), ["Your name: "]));
    view.frame();
    await press(view.stdin, "B", "o", "b");
    view.update(modelOf(prompting("Your name:"), ["Your name: "]));
    await tick();
    assert.match(view.frame(), /› Bob/);
    await press(view.stdin, "\r");
    assert.deepEqual(view.calls.answers, ["Bob"]);
  });

  it("keys typed before more output came are not kept for the prompt that follows", async () => {
    const view = screen(modelOf(task(), ["working ...\n"]));
    view.frame();
    await press(view.stdin, "y");
    view.update(modelOf(task(), ["working ...\n", PROMPT]));
    view.update(modelOf(prompting(PROMPT), ["working ...\n", PROMPT]));
    await tick();
    assert.deepEqual(view.calls.answers, []);
    includes(view.frame(), "press y or n");
  });

  it("keys typed ahead go to one prompt only", async () => {
    const view = screen(modelOf(task(), [PROMPT]));
    view.frame();
    await press(view.stdin, "n");
    view.update(modelOf(prompting(PROMPT), [PROMPT]));
    await tick();
    const again = prompting(PROMPT, {
      prompt: { id: "again", text: PROMPT, deadline: iso(STARTED + 120_000), allowedResponders: ["any"] },
    });
    view.update(modelOf(again, [PROMPT]));
    await tick();
    assert.deepEqual(view.calls.answers, ["n"]);
  });

  it("a second y before the first answer is through sends nothing more", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(PROMPT)));
    frame();
    await press(stdin, "yy");
    await press(stdin, "y");
    assert.deepEqual(calls.answers, ["y"]);
  });
});

describe("the input line of a text prompt", () => {
  const ASK = "Are you sure? Type the new name:";

  it("a burst of keys and Enter in one read sends all that was typed", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "Bob\r");
    assert.deepEqual(calls.answers, ["Bob"]);
  });

  it("keys in one read, Enter in the next, before any redraw: all that was typed", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await tick();
    stdin.write("Bo");
    stdin.write("b");
    stdin.write("\r");
    await tick();
    assert.deepEqual(calls.answers, ["Bob"]);
  });

  it("a paste that ends in \\r or \\r\\n sends the line without the line break", async () => {
    for (const paste of ["Alice\r", "Alice\r\n", "Alice\n"]) {
      const view = screen(modelOf(prompting(ASK)));
      view.frame();
      await press(view.stdin, paste);
      assert.deepEqual(view.calls.answers, ["Alice"], JSON.stringify(paste));
      view.unmount();
    }
  });

  it("a paste of several lines sends the first and says the others were not sent", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "one\rtwo\rthree\r");
    assert.deepEqual(calls.answers, ["one"]);
    includes(frame(), "the 2 lines pasted after it were not sent");
  });

  it("a paste with tabs: each becomes a space", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "a\tb\r");
    assert.deepEqual(calls.answers, ["a b"]);
  });

  it("backspace after an emoji removes all of it", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "Bøb é 😀");
    includes(frame(), "Bøb é 😀");
    await press(stdin, "\u007f", "\r");
    assert.deepEqual(calls.answers, ["Bøb é "]);
  });

  it("left and right arrows move the cursor; typing goes in at it", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "Bb", "\u001b[D", "o", "\u001b[D", "\u001b[C", "\u001b[C", "!", "\r");
    assert.deepEqual(calls.answers, ["Bob!"]);
  });

  it("Home, End, Ctrl-A, Ctrl-E, Ctrl-U, Ctrl-W", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "middle", "\u0001", ">", "\u0005", "<", "\r");
    assert.deepEqual(calls.answers, [">middle<"]);
    const second = screen(modelOf(prompting(ASK)));
    second.frame();
    await press(second.stdin, "gone", "\u0015", "one two", "\u0017", "three", "\u001b[H", "[", "\u001b[F", "]", "\r");
    assert.deepEqual(second.calls.answers, ["[one three]"]);
  });

  it("shows the cursor where it is: the grapheme under it in inverse", async () => {
    const { stdin, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "abc", "\u001b[D");
    assert.match(frame(), /› abc/);
  });

  it("a refused answer leaves the box open, and keys work again", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)), { accept: false });
    frame();
    await press(stdin, "first\r");
    await press(stdin, "second\r");
    assert.deepEqual(calls.answers, ["first", "second"]);
  });

  it("while an answer is on its way, a second Enter sends nothing", async () => {
    const { stdin, calls, frame } = screen(modelOf(prompting(ASK)));
    frame();
    await press(stdin, "once\r\r");
    await press(stdin, "\r");
    assert.deepEqual(calls.answers, ["once"]);
  });
});

describe("the parts on their own", () => {
  it("PartialLine marks stderr and not stdout", () => {
    const err = frameOf(render(<PartialLine line={{ stream: "stderr", text: "e" }} />).lastFrame);
    assert.match(err, /^│ e/);
    const out = frameOf(render(<PartialLine line={{ stream: "stdout", text: "o" }} />).lastFrame);
    assert.match(out, /^ {2}o/);
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
    const { lastFrame } = render(<PromptBox prompt="Proceed (yes/no)" onAnswer={() => undefined} />);
    const frame = frameOf(lastFrame);
    includes(frame, "y (yes)");
    includes(frame, "n (no)");
  });
});

describe("ModelStore", () => {
  it("a status event reaches the listeners at once", () => {
    const store = new ModelStore(undefined, 1000);
    let heard = 0;
    store.subscribe(() => {
      heard += 1;
    });
    store.dispatch({ type: "status", task: task() });
    assert.equal(heard, 1);
    assert.equal(store.get().task?.state, "working");
  });

  it("output is batched: one notification for a burst, after the interval; the lines then go to the scrollback", async () => {
    const written: ScrollLine[] = [];
    const store = new ModelStore((lines) => written.push(...lines), 20);
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
    assert.deepEqual(
      written.map((line) => line.text),
      ["a", "b", "c"],
    );
    assert.deepEqual(store.get().lines, [], "written lines leave the model");
  });

  it("many lines waiting are written at once, not at the next interval", () => {
    const written: ScrollLine[] = [];
    const store = new ModelStore((lines) => written.push(...lines), 60_000);
    store.dispatch(output("x\n".repeat(1500)));
    assert.equal(written.length, 1500);
  });

  it("answered echoes the answer between the output lines and clears the error; failed sets the error", () => {
    const written: ScrollLine[] = [];
    const store = new ModelStore((lines) => written.push(...lines), 1000);
    let heard = 0;
    const off = store.subscribe(() => {
      heard += 1;
    });
    store.failed("the command is no longer running");
    assert.equal(store.get().error, "the command is no longer running");
    store.answered("Continue? [Y/n]", "y");
    assert.equal(store.get().error, undefined);
    assert.deepEqual(written, [{ stream: "note", text: 'answered "y" to Continue? [Y/n]' }]);
    store.answered("Continue? [Y/n]", "n", "--answer");
    assert.deepEqual(written.at(-1), { stream: "note", text: 'answered "n" to Continue? [Y/n] (--answer)' });
    assert.equal(heard, 3);
    off();
    store.failed("again");
    assert.equal(heard, 3);
  });

  it("interrupted counts the Ctrl-C presses", () => {
    const store = new ModelStore(undefined, 1000);
    store.interrupted(2);
    assert.equal(store.get().interrupts, 2);
  });
});
