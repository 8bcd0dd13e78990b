// Where JSON text first goes wrong (src/core/envelope/json-error-offset.ts): nothing for valid JSON, the offset of
// the first character that cannot continue it otherwise, in objects and arrays alike.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { jsonErrorOffset } from "../../src/core/envelope/json-error-offset.js";

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe("jsonErrorOffset", () => {
  it("finds nothing wrong in valid JSON", () => {
    fc.assert(fc.property(fc.json(), (text) => assert.equal(jsonErrorOffset(text), undefined)));
  });

  it("gives an offset within the text exactly when JSON.parse refuses it", () => {
    const mutated = fc
      .tuple(fc.json(), fc.nat(), fc.constantFrom(",", "}", "]", "{", "[", ":", '"', "x", "\\"), fc.nat(2))
      .map(([json, at, insert, cut]) => {
        const place = at % (json.length + 1);
        return json.slice(0, place) + insert + json.slice(place + cut);
      });
    fc.assert(
      fc.property(fc.oneof(mutated, fc.string()), (text) => {
        const offset = jsonErrorOffset(text);
        if (parses(text)) assert.equal(offset, undefined);
        else assert.ok(offset !== undefined && offset >= 0 && offset <= text.length, `${offset} in ${text}`);
      }),
    );
  });

  it("points at the first character that cannot follow, in objects and arrays", () => {
    const cases: [string, number][] = [
      ["{", 1],
      ["[", 1],
      ["[1,]", 3],
      ['{"a":1,}', 7],
      ['{"a" 1}', 5],
      ["{,}", 1],
      ["[1 2]", 3],
      ["[,]", 1],
      ['{"a":[1,{"b":}]}', 13],
      ["[1]]", 3],
      ["tru", 3],
    ];
    for (const [text, offset] of cases) assert.equal(jsonErrorOffset(text), offset, text);
  });

  it("gives up past a nesting of 1000 rather than the stack", () => {
    assert.equal(jsonErrorOffset("[".repeat(2000)), undefined);
  });
});
