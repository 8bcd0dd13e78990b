// The output view's row heights (src/web/row-heights.ts): one LINE_HEIGHT a row, except rows that wrapped; the
// offset of a row and the row at an offset agree, for any wrapped rows (fast-check).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { LINE_HEIGHT, RowHeights } from "../../src/web/row-heights.js";

describe("RowHeights", () => {
  it("rows of one line take LINE_HEIGHT; a wrapped row its measured height", () => {
    const heights = new RowHeights();
    assert.equal(heights.span(0, 10), 10 * LINE_HEIGHT);
    assert.equal(heights.set(3, 54), true);
    assert.equal(heights.set(3, 54), false);
    assert.equal(heights.span(0, 10), 10 * LINE_HEIGHT + 36);
    assert.equal(heights.span(4, 10), 6 * LINE_HEIGHT);
    assert.equal(heights.indexAt(0, 3 * LINE_HEIGHT + 40), 3);
    assert.equal(heights.indexAt(0, 3 * LINE_HEIGHT + 54), 4);
    heights.forgetBefore(4);
    assert.equal(heights.span(0, 10), 10 * LINE_HEIGHT);
  });

  it("for any wrapped rows: the row at a row's offset is that row", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.integer({ min: 0, max: 60 }).map(String), fc.integer({ min: 1, max: 6 })),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 80 }),
        (tall, base, pick) => {
          const heights = new RowHeights();
          for (const [row, lines] of Object.entries(tall)) heights.set(base + Number(row), lines * LINE_HEIGHT);
          const offset = heights.span(base, base + pick);
          assert.equal(heights.indexAt(base, offset), pick);
          const height = heights.span(base + pick, base + pick + 1);
          assert.equal(heights.indexAt(base, offset + height - 1), pick);
        },
      ),
    );
  });
});
