// docs/reference.md and the code agree: every generated table is what the code's tables make today.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { BLOCK_NAMES, regenerate } from "../../scripts/reference/generate.js";

const document = readFileSync(new URL("../../docs/reference.md", import.meta.url), "utf8");

describe("docs/reference.md", () => {
  it("its generated tables match the code (run `npm run reference` after changing a table)", () => {
    assert.equal(document, regenerate(document));
  });

  it("has every generated table", () => {
    for (const name of BLOCK_NAMES) assert.ok(document.includes(`<!-- generated:${name} -->`), name);
  });
});
