// The screen on a narrow terminal (issue 49, item 5): the header and the summary are laid out in whole pieces (a
// path shortened from the left with an ellipsis, an id never split), and the state line keeps the state and what
// Ctrl-C does, giving up the bar first. At 40, 50 and 80 columns, and for any width and path (fast-check).
import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { stripVTControlCharacters } from "node:util";
import fc from "fast-check";
import { cleanup, render } from "ink-testing-library";
import stringWidth from "string-width";
import { answerIn } from "../../src/client/task-facts.js";
import type { TaskView } from "../../src/core/task/task-record.js";
import { fitPieces, shortenPath } from "../../src/ui/fit-line.js";
import { StatusLine } from "../../src/ui/ink/components.js";
import { paintFor } from "../../src/ui/paint.js";
import { headerLines, summaryLines } from "../../src/ui/scrollback.js";
import { ASSESS_ENVELOPE, taskView } from "../helpers/events.js";

const plain = paintFor({ isTTY: false });
const STARTED = Date.parse("2025-01-01T00:00:00.000Z");
const ID = "2320a5e1-7c3b-4d7e-9f51-0b1c2d3e4f50";
const LONG_DIR = "/home/someone/src/a-checkout-with-a-long-name/test/fixtures/workspace/project-one";

function task(overrides: Partial<TaskView> = {}): TaskView {
  return taskView({
    id: ID,
    state: "working",
    envelope: ASSESS_ENVELOPE,
    workingDir: LONG_DIR,
    startedAt: new Date(STARTED).toISOString(),
    deadline: new Date(STARTED + 120_000).toISOString(),
    endedAt: new Date(STARTED + 65_000).toISOString(),
    timeoutSeconds: 120,
    ...overrides,
  });
}

const fits = (lines: string[], columns: number) => {
  for (const line of lines) assert.ok(stringWidth(line) <= columns, `wider than ${columns}: ${JSON.stringify(line)}`);
};

afterEach(cleanup);

describe("shortenPath and fitPieces", () => {
  it("a path is shortened from the left, from a slash when one fits", () => {
    assert.equal(shortenPath("/a/b/c", 10), "/a/b/c");
    assert.equal(shortenPath(".aiwg/ops/runs/req.json", 16), "…/runs/req.json");
    assert.equal(shortenPath(".aiwg/ops/runs/a-long-request-name.json", 12), "…t-name.json");
  });

  it("pieces never split: what does not fit starts the next line; a prefix gives way before an id is split", () => {
    const pieces = [{ text: "alpha" }, { text: "beta" }, { prefix: "task ", text: ID }];
    assert.deepEqual(fitPieces(pieces, 80), [`alpha · beta · task ${ID}`]);
    assert.deepEqual(fitPieces(pieces, 41), ["alpha · beta", `task ${ID}`]);
    assert.deepEqual(fitPieces(pieces, 40), ["alpha · beta", ID]);
  });

  it("for any width and path: every line fits (or is one piece that cannot), the end of the path is kept", () => {
    const segment = fc.stringMatching(/^[a-z0-9._-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(segment, { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 20, max: 160 }),
        (parts, width) => {
          const path = `/${parts.join("/")}`;
          const lines = fitPieces(
            [{ text: "adapter-command" }, { prefix: "in ", text: path, path: true }, { prefix: "task ", text: ID }],
            width,
          );
          // The id alone may be wider than a very narrow line: it is then on a line of its own, whole.
          fits(
            lines.filter((line) => line !== ID),
            width,
          );
          const shown = lines.join("\n");
          assert.ok(shown.includes(ID), shown);
          const last = parts.at(-1) as string;
          assert.ok(shown.includes(path) || shown.includes("…"), shown);
          if (`…/${last}`.length + 3 <= width) assert.ok(shown.includes(`/${last}`), shown);
        },
      ),
    );
  });
});

describe("the header and the summary at 40, 50 and 80 columns", () => {
  for (const columns of [40, 50, 80]) {
    it(`${columns} columns: every line fits, the id is whole, the request and the folder end as they do`, () => {
      const header = headerLines(task(), ".aiwg/ops/runs/assess-confirm.json", plain, columns);
      fits(header, columns);
      const text = header.join("\n");
      assert.ok(
        header.some((line) => line.includes(ID)),
        text,
      );
      assert.match(text, /assess-confirm\.json/);
      assert.match(text, /…\S*\/project-one|\/project-one/);
      assert.doesNotMatch(text, /(^|\n)(iwg|sk |ta\n)/);
      const summary = summaryLines(task({ state: "canceled" }), 2048, plain, undefined, columns);
      fits(summary, columns);
      assert.ok(
        summary.some((line) => line.includes(ID)),
        summary.join("\n"),
      );
    });
  }

  it("the details of a failure are broken between words", () => {
    const failed = task({
      state: "failed",
      failKind: "infrastructure",
      reason: "spawn_failed",
      statusText: "failed: could not start the runner because the file is missing",
    });
    const lines = summaryLines(failed, 0, plain, undefined, 40);
    fits(lines, 40);
    assert.match(lines.slice(1).join(" "), /could not start the runner because the file is missing/);
  });
});

describe("the state line at 40, 50 and 80 columns", () => {
  const frame = (view: TaskView, columns: number, interrupts = 0) =>
    stripVTControlCharacters(
      render(<StatusLine task={view} now={STARTED + 3000} columns={columns} interrupts={interrupts} />).lastFrame() ??
        "",
    );
  for (const columns of [40, 50, 80]) {
    it(`${columns} columns: the state, and what Ctrl-C does, on one line that fits`, () => {
      for (const state of ["working", "input-required"] as const) {
        const line = frame(task({ state }), columns);
        assert.equal(line.split("\n").length, 1, line);
        assert.ok(stringWidth(line) <= columns, line);
        assert.match(line, new RegExp(`^${state}`));
        assert.match(line, /· Ctrl-C cancels$/, line);
      }
      const canceling = frame(task(), columns, 1);
      assert.ok(stringWidth(canceling) <= columns, canceling);
      assert.match(canceling, /Ctrl-C again kills it now$/, canceling);
    });
  }

  it("80 columns keep the whole bar and the time left; 50 a shorter bar", () => {
    assert.match(frame(task(), 80), /^working 3s [█░]{20} 1m57s left · Ctrl-C cancels$/);
    assert.match(frame(task(), 50), /^working 3s [█░]{6,19} 1m57s left · Ctrl-C cancels$/);
  });
});

describe("an answer another client gave, in the task's history", () => {
  it("is found by its prompt id, the last one first", () => {
    const answer = (prompt: string, text: string) =>
      ({ metadata: { hitl_response_for: { prompt_id: prompt, payload: { text } } }, parts: [] }) as never;
    const history = [answer("p1", "no"), answer("p2", "yes"), answer("p1", "y")];
    assert.equal(answerIn(history, "p1"), "y");
    assert.equal(answerIn(history, "p2"), "yes");
    assert.equal(answerIn(history, "p3"), undefined);
  });
});
