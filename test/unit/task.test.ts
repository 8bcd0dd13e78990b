import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  assertMove,
  canMove,
  IllegalTransition,
  isTerminal,
  TASK_STATES,
  type TaskState,
} from "../../src/core/task/task.js";

const LEGAL: Record<TaskState, TaskState[]> = {
  submitted: ["working", "failed", "canceled"],
  working: ["input-required", "completed", "failed", "canceled"],
  "input-required": ["working", "completed", "failed", "canceled"],
  completed: [],
  failed: [],
  canceled: [],
};

describe("task transition table", () => {
  for (const from of TASK_STATES) {
    for (const to of TASK_STATES) {
      const legal = LEGAL[from].includes(to);
      it(`${from} → ${to} is ${legal ? "legal" : "illegal"}`, () => {
        assert.equal(canMove(from, to), legal);
        if (legal) assert.doesNotThrow(() => assertMove(from, to));
        else assert.throws(() => assertMove(from, to), IllegalTransition);
      });
    }
  }
  it("only completed, failed and canceled are terminal", () => {
    assert.deepEqual(
      TASK_STATES.filter((s) => isTerminal(s)),
      ["completed", "failed", "canceled"],
    );
  });
});
