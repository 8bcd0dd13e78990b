// What the screen writes above its live area (CONTRACT section 6): the header with the envelope, each finished line
// (stderr told apart, answers echoed), and the summary with its words; written once, through the live area's writer
// while there is one. And the words of an ending, shared with the plain mode's closing line.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { TaskView } from "../../src/core/task/task-record.js";
import { paintFor } from "../../src/ui/paint.js";
import { formatLine, headerLines, Scrollback, summaryLines } from "../../src/ui/scrollback.js";
import { closingLines, endingOf } from "../../src/ui/words.js";
import { ASSESS_ENVELOPE, ASSESS_REQUEST, taskView } from "../helpers/events.js";

const plain = paintFor({ isTTY: false });
const REQUEST = ASSESS_REQUEST;
const ENVELOPE = ASSESS_ENVELOPE;
const STARTED = Date.parse("2025-01-01T00:00:00.000Z");

/** A task of the envelope above that ran 65 s and ended as `overrides` say. */
function ended(overrides: Partial<TaskView>): TaskView {
  return taskView({
    envelope: ENVELOPE,
    workingDir: "/tmp/ws/project-one",
    timeoutSeconds: 120,
    startedAt: new Date(STARTED).toISOString(),
    endedAt: new Date(STARTED + 65_000).toISOString(),
    ...overrides,
  });
}

describe("headerLines", () => {
  it("names the adapter, the mode, the request, the working directory and the task id", () => {
    const lines = headerLines(ended({ state: "working" }), REQUEST, plain);
    assert.deepEqual(lines, [
      `adapter-command sandbox-agent-runner · assess · ${REQUEST}`,
      "in /tmp/ws/project-one · task task-1",
    ]);
  });

  it("for the echo dispatch, names the file", () => {
    assert.deepEqual(headerLines(taskView({ dispatch: "echo" }), "message.json", plain), [
      "adapter-command echo · message.json",
      "task task-1",
    ]);
  });

  it("shows control characters in a working directory escaped", () => {
    const lines = headerLines(ended({ workingDir: "/tmp/a\u001b[2Jb" }), REQUEST, plain);
    assert.equal(lines[1], "in /tmp/a\\u001b[2Jb · task task-1");
  });
});

describe("formatLine", () => {
  it("stdout indented, stderr marked with │, the tool's notes with »", () => {
    assert.equal(formatLine({ stream: "stdout", text: "out" }, plain), "  out");
    assert.equal(formatLine({ stream: "stderr", text: "err" }, plain), "│ err");
    assert.equal(formatLine({ stream: "note", text: 'answered "y"' }, plain), '» answered "y"');
  });

  it("on a terminal, stderr is yellow and notes are dim", () => {
    const colour = paintFor({ isTTY: true });
    if (process.env.NO_COLOR) return;
    assert.equal(formatLine({ stream: "stderr", text: "err" }, colour), "\u001b[33m│ err\u001b[39m");
    assert.equal(formatLine({ stream: "note", text: "n" }, colour), "\u001b[2m» n\u001b[22m");
  });
});

describe("Scrollback", () => {
  it("writes whole lines, each ending in a newline; through the live area's writer while one is routed", () => {
    const direct: string[] = [];
    const routed: string[] = [];
    const scrollback = new Scrollback({ write: (text: string) => direct.push(text) } as never, plain);
    scrollback.lines([
      { stream: "stdout", text: "a" },
      { stream: "stderr", text: "b" },
    ]);
    scrollback.route((text) => routed.push(text));
    scrollback.write(["c"]);
    scrollback.write([]);
    scrollback.route(undefined);
    scrollback.write(["d"]);
    assert.deepEqual(direct, ["  a\n│ b\n", "d\n"]);
    assert.deepEqual(routed, ["c\n"]);
  });
});

describe("summaryLines and the words of an ending", () => {
  it("completed: ✔ completed, exit code 0, the duration and the bytes of output", () => {
    assert.deepEqual(summaryLines(ended({ state: "completed", exitCode: 0 }), 225, plain), [
      "✔ completed · exit code 0 · 1m05s · 225 B of output · task task-1",
    ]);
    assert.match(summaryLines(ended({ state: "completed", exitCode: 0 }), 2048, plain)[0] as string, /2\.0 KiB/);
  });

  it("failed, the command exited non-zero: the exit code, no second line", () => {
    const view = ended({ state: "failed", exitCode: 3, failKind: "application", reason: "exit" });
    assert.deepEqual(summaryLines(view, 5, plain), ["✘ failed · exit code 3 · 1m05s · 5 B of output · task task-1"]);
  });

  it("failed at the deadline: it timed out after N s, not a signal, and the duration is not said twice", () => {
    const view = ended({
      state: "failed",
      exitCode: null,
      signal: "SIGTERM",
      failKind: "application",
      reason: "timeout",
      statusText: "failed: timed out after 120 s",
    });
    const [head, ...rest] = summaryLines(view, 0, plain);
    assert.equal(head, "✘ failed · timed out after 120 s · 0 B of output · task task-1");
    assert.deepEqual(rest, []);
    assert.doesNotMatch(head as string, /SIGTERM|application failure/);
  });

  it("failed, killed by a signal the tool did not send", () => {
    const view = ended({
      state: "failed",
      exitCode: null,
      signal: "SIGKILL",
      failKind: "application",
      reason: "signal",
    });
    assert.match(summaryLines(view, 0, plain)[0] as string, /✘ failed · killed by SIGKILL/);
  });

  it("failed to start: what went wrong, and --workspace when the runner is not there", () => {
    const view = ended({
      state: "failed",
      exitCode: null,
      failKind: "infrastructure",
      reason: "spawn_failed",
      statusText: "failed: no runner at /tmp/ws/project-one/.aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
    });
    const lines = summaryLines(view, 0, plain, "/tmp/ws");
    assert.equal(lines[0], "✘ failed · could not start · 1m05s · 0 B of output · task task-1");
    assert.equal(lines[1], "no runner at /tmp/ws/project-one/.aiwg/ops/adapters/sandbox-agent-runner/runner.mjs");
    assert.match(lines[2] as string, /pass --workspace DIR/);
    assert.match(lines[2] as string, /\/tmp\/ws/);
  });

  it("no --workspace hint when the runner is there (the failure is something else)", () => {
    const view = ended({
      state: "failed",
      exitCode: null,
      failKind: "infrastructure",
      reason: "spawn_failed",
      statusText: "failed: could not start the runner: EACCES",
    });
    assert.deepEqual(endingOf(view, "/tmp/ws", () => true).details, ["could not start the runner: EACCES"]);
  });

  it("canceled: ✘ canceled, no signal and no failure line", () => {
    const view = ended({ state: "canceled", exitCode: null, signal: "SIGTERM", reason: "canceled" });
    assert.deepEqual(summaryLines(view, 8, plain), ["✘ canceled · 1m05s · 8 B of output · task task-1"]);
  });

  it("the plain mode's closing lines: the task's own words, then the hint", () => {
    assert.deepEqual(
      closingLines(ended({ state: "completed", exitCode: 0, statusText: "completed: the command exited with code 0" })),
      ["completed: the command exited with code 0"],
    );
    const missing = ended({
      state: "failed",
      failKind: "infrastructure",
      reason: "spawn_failed",
      statusText: "failed: no runner at /x/runner.mjs",
    });
    const lines = closingLines(missing, "/tmp/ws", () => false);
    assert.equal(lines[0], "failed: no runner at /x/runner.mjs");
    assert.match(lines[1] as string, /--workspace/);
    assert.equal(lines.length, 2);
    const hostile = ended({ state: "failed", failKind: "infrastructure", statusText: "failed: no dir /tmp/\u001b[2J" });
    assert.equal(closingLines(hostile)[0], "failed: no dir /tmp/\\u001b[2J");
  });
});
