// The ids of rows already checked are bounded: past MAX_CHECKED_ROWS the oldest is forgotten (and checked again).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CheckedRows, MAX_CHECKED_ROWS } from "../../src/store/checked-rows.js";

describe("CheckedRows", () => {
  it("remembers what it was given, at most MAX_CHECKED_ROWS ids, the oldest forgotten first", () => {
    const rows = new CheckedRows();
    assert.equal(rows.has("t0"), false);
    for (let i = 0; i < MAX_CHECKED_ROWS; i++) rows.add(`t${i}`);
    rows.add("t0");
    assert.equal(rows.has("t0"), true, "an id given again is not counted twice");
    rows.add("one more");
    assert.equal(rows.has("t0"), false, "the oldest went");
    assert.equal(rows.has("t1"), true);
    assert.equal(rows.has("one more"), true);
  });
});
