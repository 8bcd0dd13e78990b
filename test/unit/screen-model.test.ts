// The terminal UI's pure model (CONTRACT section 6): lines joined across chunks, stderr apart, arrival order kept
// across the two streams, no line dropped or cut, escapes stripped, byte counts, how a prompt is answered, and the
// formatters.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  answerStyle,
  emptyModel,
  formatBytes,
  formatDuration,
  formatTimeLeft,
  MAX_PARTIAL_CHARS,
  partialLines,
  reduce,
  type ScreenEvent,
  type ScreenModel,
} from "../../src/ui/screen-model.js";
import { output, taskView } from "../helpers/events.js";

function feed(events: ScreenEvent[], model: ScreenModel = emptyModel()): ScreenModel {
  return events.reduce((m, event) => reduce(m, event), model);
}

const texts = (model: ScreenModel) => model.lines.map((line) => line.text);

const task = taskView;

describe("reduce", () => {
  it("starts empty", () => {
    const model = emptyModel();
    assert.equal(model.task, undefined);
    assert.deepEqual(model.lines, []);
    assert.deepEqual(model.partial, { stdout: "", stderr: "" });
    assert.equal(model.bytes, 0);
    assert.equal(model.error, undefined);
    assert.equal(model.interrupts, 0);
  });

  it("joins lines that span chunks", () => {
    const model = feed([output("hel"), output("lo\nwor"), output("ld\n")]);
    assert.deepEqual(model.lines, [
      { stream: "stdout", text: "hello" },
      { stream: "stdout", text: "world" },
    ]);
    assert.equal(model.partial.stdout, "");
  });

  it("keeps an unfinished line as the partial one until its newline arrives", () => {
    const first = feed([output("one\ntw")]);
    assert.deepEqual(texts(first), ["one"]);
    assert.equal(first.partial.stdout, "tw");
    const second = reduce(first, output("o\n"));
    assert.deepEqual(texts(second), ["one", "two"]);
    assert.equal(second.partial.stdout, "");
  });

  it("keeps stderr apart from stdout, each joined on its own", () => {
    const model = feed([
      output("out-"),
      output("err-", "stderr"),
      output("line\n"),
      output("line\n", "stderr"),
      output("next\n", "stderr"),
    ]);
    assert.deepEqual(model.lines, [
      { stream: "stdout", text: "out-line" },
      { stream: "stderr", text: "err-line" },
      { stream: "stderr", text: "next" },
    ]);
    assert.deepEqual(model.partial, { stdout: "", stderr: "" });
  });

  it("a partial stdout line does not take a stderr line into it: it is ended first, so the order holds", () => {
    // Updated: the contract (section 6) now asks for arrival order across the two streams; the partial line used to
    // wait below the stderr line that came after it.
    const model = feed([output("half"), output("warning\n", "stderr")]);
    assert.deepEqual(model.lines, [
      { stream: "stdout", text: "half" },
      { stream: "stderr", text: "warning" },
    ]);
    assert.equal(model.partial.stdout, "");
    assert.equal(model.partial.stderr, "");
  });

  it("a prompt line, the answer, then stderr: shown in that order", () => {
    const model = feed([
      output("check ... ok\nApply? [y/N] "),
      { type: "note", text: 'answered "n" to Apply? [y/N]' },
      output("not confirmed\n", "stderr"),
    ]);
    assert.deepEqual(model.lines, [
      { stream: "stdout", text: "check ... ok" },
      { stream: "stdout", text: "Apply? [y/N] " },
      { stream: "note", text: 'answered "n" to Apply? [y/N]' },
      { stream: "stderr", text: "not confirmed" },
    ]);
  });

  it("the line break that ends a line already ended early adds no empty line; other text goes on", () => {
    const model = feed([output("Apply? [y/N] "), output("warn\n", "stderr"), output("\nconfirmed\n")]);
    assert.deepEqual(model.lines, [
      { stream: "stdout", text: "Apply? [y/N] " },
      { stream: "stderr", text: "warn" },
      { stream: "stdout", text: "confirmed" },
    ]);
  });

  it("lines still being written on both streams: each is joined, and they come out in the order they began", () => {
    const model = feed([output("a"), output("b", "stderr")]);
    assert.deepEqual(partialLines(model), [
      { stream: "stdout", text: "a" },
      { stream: "stderr", text: "b" },
    ]);
    const finished = feed([output("c\n")], model);
    assert.deepEqual(finished.lines, [{ stream: "stdout", text: "ac" }]);
    assert.deepEqual(partialLines(finished), [{ stream: "stderr", text: "b" }]);
    const reversed = feed([output("x", "stderr"), output("y")]);
    assert.deepEqual(
      partialLines(reversed).map((line) => line.stream),
      ["stderr", "stdout"],
    );
  });

  it("the end of the task ends the lines still being written", () => {
    const model = feed([output("no newline at the end"), { type: "status", task: task({ state: "completed" }) }]);
    assert.deepEqual(model.lines, [{ stream: "stdout", text: "no newline at the end" }]);
    assert.deepEqual(partialLines(model), []);
  });

  it("treats CRLF as one line break", () => {
    const model = feed([output("a\r\nb\r\n")]);
    assert.deepEqual(texts(model), ["a", "b"]);
  });

  it("keeps an empty line as a line", () => {
    const model = feed([output("a\n\nb\n")]);
    assert.deepEqual(texts(model), ["a", "", "b"]);
  });

  it("keeps every line, however many (the scrollback holds them; nothing is dropped)", () => {
    // Updated: the contract (section 6) now keeps every line; the model used to keep the last 500.
    const text = Array.from({ length: 2500 }, (_, i) => `line ${i}\n`).join("");
    const model = feed([output(text)]);
    assert.equal(model.lines.length, 2500);
    assert.equal(model.lines[0]?.text, "line 0");
    assert.equal(model.lines.at(-1)?.text, "line 2499");
  });

  it("strips ANSI escapes and other control characters", () => {
    const model = feed([
      output("\u001b[31mred\u001b[0m and \u001b[1;32mbold green\u001b[m\n"),
      output("\u001b]0;a title\u0007titled\n"),
      output("bell\u0007 here\n", "stderr"),
    ]);
    assert.deepEqual(model.lines, [
      { stream: "stdout", text: "red and bold green" },
      { stream: "stdout", text: "titled" },
      { stream: "stderr", text: "bell here" },
    ]);
  });

  it("keeps tabs and non-ASCII text", () => {
    const model = feed([output("a\tb · é ✔\n")]);
    assert.deepEqual(texts(model), ["a\tb · é ✔"]);
  });

  it("an escape sequence split across two chunks leaves nothing of itself on the screen", () => {
    // A pipe may split a colour code anywhere; the screen must not show its tail ("31m") as text.
    const model = feed([output("a\u001b[3"), output("1mred\u001b[0m\n")]);
    assert.deepEqual(texts(model), ["ared"]);
  });

  it("counts the bytes of every chunk, both streams, as UTF-8", () => {
    const model = feed([output("hello\n"), output("é✔", "stderr"), output("\n", "stderr")]);
    assert.equal(model.bytes, 6 + Buffer.byteLength("é✔") + 1);
    assert.equal(model.bytes, 12);
  });

  it("counts the bytes the command wrote, not their decoded text: one invalid byte is one byte, not three", () => {
    const invalid = { ...output("\ufffd\n"), raw: Buffer.from([0xff, 0x0a]) };
    assert.equal(feed([invalid]).bytes, 2);
  });

  it("counts the bytes of escape sequences too (they were output)", () => {
    const text = "\u001b[31mred\u001b[0m\n";
    assert.equal(feed([output(text)]).bytes, Buffer.byteLength(text));
  });

  it("ignores an empty chunk", () => {
    const model = feed([output("x\n")]);
    assert.equal(reduce(model, output("")), model);
  });

  it("keeps a very long line whole (the terminal wraps it)", () => {
    // Updated: the contract (section 6) now wraps long lines; the model used to cut them at 2000 characters.
    const model = feed([output(`${"x".repeat(5000)}\n`)]);
    assert.deepEqual(model.lines, [{ stream: "stdout", text: "x".repeat(5000) }]);
  });

  it("a line still being written that grows past the limit is written out, and goes on on the next line", () => {
    const model = feed([output("y".repeat(MAX_PARTIAL_CHARS + 10)), output("z\n")]);
    assert.deepEqual(
      model.lines.map((line) => line.text.length),
      [MAX_PARTIAL_CHARS + 10, 1],
    );
    assert.equal(model.partial.stdout, "");
  });

  it("takes the task from a status event and leaves the output alone", () => {
    const before = feed([output("kept\npart")]);
    const working = task({ state: "working" });
    const after = reduce(before, { type: "status", task: working });
    assert.equal(after.task, working);
    assert.deepEqual(after.lines, before.lines);
    assert.deepEqual(after.partial, before.partial);
    assert.equal(after.bytes, before.bytes);
    const done = reduce(after, { type: "status", task: task({ state: "completed", exitCode: 0 }) });
    assert.equal(done.task?.state, "completed");
  });

  it("an error about answering goes when a new prompt opens, and stays while the same one is open", () => {
    const prompt = (id: string) => ({
      id,
      text: "Continue? [y/N]",
      deadline: "2025-01-01T00:02:00.000Z",
      allowedResponders: ["any"],
    });
    const open = reduce(emptyModel(), {
      type: "status",
      task: task({ state: "input-required", prompt: prompt("one") }),
    });
    const refused = { ...open, error: "the deadline has passed" };
    const same = reduce(refused, { type: "status", task: task({ state: "input-required", prompt: prompt("one") }) });
    assert.equal(same.error, "the deadline has passed");
    const next = reduce(refused, { type: "status", task: task({ state: "input-required", prompt: prompt("two") }) });
    assert.equal(next.error, undefined);
  });

  it("does not change the model it was given", () => {
    const before = feed([output("a\n")]);
    const snapshot = structuredClone(before);
    reduce(before, output("b\nc"));
    assert.deepEqual(before, snapshot);
  });
});

describe("answerStyle", () => {
  it("[y/N]: y or n at once, Enter sends n", () => {
    assert.deepEqual(answerStyle("Apply these 3 changes? [y/N]"), { kind: "yes-no", yes: "y", no: "n", enter: "n" });
  });

  it("[Y/n]: y or n at once, Enter sends y", () => {
    assert.deepEqual(answerStyle("Continue? [Y/n] "), { kind: "yes-no", yes: "y", no: "n", enter: "y" });
  });

  it("[Y/N] and (y/n): y or n, no Enter default", () => {
    assert.deepEqual(answerStyle("Overwrite? [Y/N]"), { kind: "yes-no", yes: "y", no: "n", enter: undefined });
    assert.deepEqual(answerStyle("Overwrite? (y/n)"), { kind: "yes-no", yes: "y", no: "n", enter: undefined });
  });

  it("(yes/no): the words yes and no, no Enter default", () => {
    assert.deepEqual(answerStyle("Do you want to proceed (yes/no)?"), {
      kind: "yes-no",
      yes: "yes",
      no: "no",
      enter: undefined,
    });
  });

  it("other prompts take typed text", () => {
    for (const prompt of [
      "Press ENTER to continue",
      "press enter when ready",
      "Are you sure? type the name of the project:",
      "Would you like to name it?",
      "Press any key",
      "Do you want to proceed?",
    ]) {
      assert.deepEqual(answerStyle(prompt), { kind: "text" }, prompt);
    }
  });
});

describe("formatDuration", () => {
  it("whole seconds under a minute", () => {
    assert.equal(formatDuration(0), "0s");
    assert.equal(formatDuration(999), "0s");
    assert.equal(formatDuration(1000), "1s");
    assert.equal(formatDuration(59_999), "59s");
  });

  it("minutes and two-digit seconds from a minute on", () => {
    assert.equal(formatDuration(60_000), "1m00s");
    assert.equal(formatDuration(65_000), "1m05s");
    assert.equal(formatDuration(118_400), "1m58s");
    assert.equal(formatDuration(3_600_000), "60m00s");
  });

  it("never negative (a deadline already passed)", () => {
    assert.equal(formatDuration(-5000), "0s");
  });
});

describe("formatTimeLeft", () => {
  it("rounds up: 0s only once the deadline has come", () => {
    assert.equal(formatTimeLeft(900), "1s");
    assert.equal(formatTimeLeft(1), "1s");
    assert.equal(formatTimeLeft(0), "0s");
    assert.equal(formatTimeLeft(-300), "0s");
    assert.equal(formatTimeLeft(119_500), "2m00s");
  });
});

describe("formatBytes", () => {
  it("bytes under a KiB", () => {
    assert.equal(formatBytes(0), "0 B");
    assert.equal(formatBytes(225), "225 B");
    assert.equal(formatBytes(1023), "1023 B");
  });

  it("KiB and MiB with one decimal", () => {
    assert.equal(formatBytes(1024), "1.0 KiB");
    assert.equal(formatBytes(1536), "1.5 KiB");
    assert.equal(formatBytes(1024 * 1024), "1.0 MiB");
    assert.equal(formatBytes(8 * 1024 * 1024), "8.0 MiB");
    assert.equal(formatBytes(5.5 * 1024 * 1024), "5.5 MiB");
  });
});
