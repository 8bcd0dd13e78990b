// Every problem of a file, in the file's order (issue 49, item 6): the workspace's checks run on an envelope the
// schema refused (a bad request and a working_dir outside the workspace are both told, by validate and by the
// dispatcher every binding goes through), and problems are listed by line and column.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { analyzeInput, analyzeText } from "../../src/a2a/input-file.js";
import { inTextOrder, type Problem } from "../../src/core/envelope/problems.js";
import { placementProblems } from "../../src/core/envelope/workspace.js";
import type { CoreError } from "../../src/core/errors.js";
import { Dispatcher } from "../../src/core/task/dispatcher.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "../helpers/cli.js";
import { commandFor, envelope } from "../helpers/envelopes.js";

const codes = (problems: readonly Problem[]) => problems.map((problem) => problem.code);

describe("inTextOrder", () => {
  it("for any problems: by line then column, those without a place last, each order otherwise kept", () => {
    const problem = fc.record(
      {
        path: fc.string({ maxLength: 3 }),
        code: fc.string({ maxLength: 3 }),
        message: fc.string({ maxLength: 3 }),
        line: fc.integer({ min: 1, max: 5 }),
        column: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: ["path", "code", "message"] },
    );
    fc.assert(
      fc.property(fc.array(problem, { maxLength: 20 }), (problems) => {
        const numbered = problems.map((p, index) => ({ ...p, message: String(index) }));
        const sorted = inTextOrder(numbered);
        assert.equal(sorted.length, numbered.length);
        for (let i = 1; i < sorted.length; i += 1) {
          const [a, b] = [sorted[i - 1] as Problem, sorted[i] as Problem];
          const la = a.line ?? Number.POSITIVE_INFINITY;
          const lb = b.line ?? Number.POSITIVE_INFINITY;
          assert.ok(la < lb || (la === lb && (a.column ?? 0) <= (b.column ?? 0)), JSON.stringify(sorted));
          if (la === lb && (a.column ?? 0) === (b.column ?? 0)) assert.ok(Number(a.message) < Number(b.message));
        }
      }),
    );
  });

  it("an unknown field above a bad value is listed first (analyzeText)", () => {
    const text = `{\n  "adapter": "sandbox-agent-runner",\n  "mode": "plan",\n  "command": ${JSON.stringify(commandFor(".aiwg/ops/runs/req.json"))},\n  "extra": 1,\n  "timeout_seconds": -5\n}\n`;
    const { analysis } = analyzeText(text);
    assert.equal(analysis.valid, false);
    if (analysis.valid) return;
    assert.deepEqual(
      analysis.errors.map((p) => `${p.line}:${p.column} ${p.code}`),
      ["5:3 unknown_field", "6:3 out_of_range"],
    );
  });
});

describe("the workspace's checks of a refused envelope", () => {
  const both = envelope({ command: commandFor("/etc/passwd"), working_dir: "/etc" });

  it("placementProblems: the working_dir outside, not the request the schema already refused", () => {
    const analysis = analyzeInput(both);
    assert.equal(analysis.valid, false);
    if (analysis.valid || !analysis.refused) return assert.fail("no refused envelope");
    assert.deepEqual(codes(analysis.errors), ["request_absolute", "request_outside_allowed"]);
    assert.deepEqual(codes(placementProblems(FIXTURES, analysis.refused, analysis.errors)), ["working_dir_outside"]);
  });

  it("a working_dir the schema refused is not checked again; a valid request under a refused mode is", () => {
    const wrongType = analyzeInput(envelope({ working_dir: 7 }));
    if (wrongType.valid || !wrongType.refused) return assert.fail("expected a refusal");
    assert.deepEqual(placementProblems(FIXTURES, wrongType.refused, wrongType.errors), []);
    const link = analyzeInput(
      envelope({ mode: "build", working_dir: "escape", command: commandFor(".aiwg/ops/runs/link.json") }),
    );
    if (link.valid || !link.refused) return assert.fail("expected a refusal");
    assert.deepEqual(codes(placementProblems(FIXTURES, link.refused, link.errors)), ["request_escape"]);
  });

  it("the dispatcher (every binding) rejects with every problem", () => {
    const dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: FIXTURES });
    assert.throws(
      () => dispatcher.submit({ analysis: analyzeInput(both), hitlActivated: true }),
      (error: CoreError) => {
        assert.equal(error.code, "envelope_rejected");
        assert.deepEqual(codes(error.data.errors as Problem[]), [
          "request_absolute",
          "request_outside_allowed",
          "working_dir_outside",
        ]);
        return true;
      },
    );
  });
});
