// JSON measured while it is made (src/operations/answer-budget.ts): the text JSON.stringify gives while it fits, nothing
// once it does not, and a budget that, once passed, stays closed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { AnswerBudget, answerLimitOf, jsonWithin } from "../../src/operations/answer-budget.js";
import { JsonText } from "../../src/operations/json-text.js";

const bytes = (text: string) => Buffer.byteLength(text, "utf8");

describe("jsonWithin", () => {
  it("gives JSON.stringify's text when it fits, undefined when it does not", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat({ max: 4000 }), (value, maxBytes) => {
        const expected = JSON.stringify(value);
        const text = jsonWithin(value, maxBytes);
        if (bytes(expected) <= maxBytes) assert.equal(text, expected);
        else assert.equal(text, undefined);
      }),
    );
  });

  it("leaves out what JSON.stringify leaves out, and writes toJSON's value", () => {
    const value = { a: undefined, b: [undefined, () => 1], c: new Date(0), d: { e: { f: { g: [1] } } } };
    assert.equal(jsonWithin(value, 1000), JSON.stringify(value));
  });

  it("splices a JsonText in as it is, at any depth, and counts its bytes", () => {
    const task = new JsonText(() => '{"id":"t","history":["é"]}');
    const answer = { jsonrpc: "2.0", id: 1, result: { tasks: [task, task] } };
    const expected =
      '{"jsonrpc":"2.0","id":1,"result":{"tasks":[{"id":"t","history":["é"]},{"id":"t","history":["é"]}]}}';
    assert.equal(jsonWithin(answer, bytes(expected)), expected);
    assert.equal(jsonWithin(answer, bytes(expected) - 1), undefined, "é is two bytes");
  });

  it("stops at the member that passes the bound: a later member is never made", () => {
    let made = 0;
    const late = new JsonText(() => {
      made += 1;
      return "1";
    });
    const page = { tasks: [new JsonText(`"${"x".repeat(100)}"`), late] };
    assert.equal(jsonWithin(page, 50), undefined);
    assert.equal(made, 0);
  });
});

describe("AnswerBudget", () => {
  it("spends what fits, and once something did not fit, nothing more does", () => {
    const budget = new AnswerBudget(10);
    assert.equal(budget.take(4), true);
    assert.equal(budget.left, 6);
    assert.equal(budget.take(7), false);
    assert.equal(budget.exhausted, true);
    assert.equal(budget.take(1), false, "closed");
  });

  it("is 8 bytes of answer for each byte of --max-output-bytes", () => {
    assert.equal(answerLimitOf(1024), 8192);
  });
});
