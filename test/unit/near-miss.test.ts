// Near misses: metadata keys that were meant to be the extension URI (CONTRACT section 2), and the "did you
// mean" guesses of validate.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closest, editDistance } from "../../src/core/edit-distance.js";
import { isNearMissKey, nearMissPattern } from "../../src/core/envelope/envelope-key.js";
import { ADAPTER_URI } from "../../src/core/uris.js";

describe("isNearMissKey", () => {
  it("the exact URI is not a near miss", () => {
    assert.equal(isNearMissKey(ADAPTER_URI), false);
  });
  const near = [
    "http://agentic-sandbox.aiwg.io/extensions/adapter-command/v1",
    "HTTPS://AGENTIC-SANDBOX.AIWG.IO/EXTENSIONS/ADAPTER-COMMAND/V1",
    `${ADAPTER_URI}/`,
    `${ADAPTER_URI}//`,
    ADAPTER_URI.replace("/v1", "/v2"),
    ADAPTER_URI.replace("/v1", ""),
    "adapter-command/v1",
    "https://other.example/x/adapter-command/v1",
    "extensions/adapter-command",
    "agentic-sandbox.aiwg.io/extensions/adapter-command/v1",
    ADAPTER_URI.replace("command", "comand"),
    ADAPTER_URI.replace("aiwg", "aiwq"),
  ];
  for (const key of near) it(`${key}: a near miss`, () => assert.equal(isNearMissKey(key), true));
  const far = [
    "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1",
    "https://example.com/other",
    "a2a-service-parameters",
    "adapter",
    "",
    "x".repeat(100_000),
  ];
  for (const key of far) it(`${key.slice(0, 60)}: not a near miss`, () => assert.equal(isNearMissKey(key), false));
});

describe("nearMissPattern (what the JSON Schema states)", () => {
  const pattern = new RegExp(nearMissPattern(), "u");
  it("matches every near miss that is not a typo in the middle", () => {
    for (const key of [
      "http://agentic-sandbox.aiwg.io/extensions/adapter-command/v1",
      ADAPTER_URI.toUpperCase(),
      `${ADAPTER_URI}/`,
      ADAPTER_URI.replace("/v1", "/v2"),
      "urn:x:Adapter-Command/V1 ",
    ])
      assert.ok(pattern.test(key), key);
  });
  it("matches the exact URI too (the schema lets that one through by name)", () => {
    assert.ok(pattern.test(ADAPTER_URI));
  });
  it("does not match unrelated keys", () => {
    for (const key of ["https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1", "https://example.com/other"])
      assert.equal(pattern.test(key), false, key);
  });
});

describe("editDistance and closest", () => {
  it("counts insertions, deletions, substitutions and swaps of neighbours as one edit each", () => {
    assert.equal(editDistance("timout_seconds", "timeout_seconds", 3), 1);
    assert.equal(editDistance("plna", "plan", 3), 1);
    assert.equal(editDistance("plan", "plan", 3), 0);
    assert.equal(editDistance("kitten", "sitting", 5), 3);
  });
  it("stops at the limit", () => {
    assert.equal(editDistance("a", "abcdefgh", 2), 3);
    assert.equal(editDistance("abcdef", "uvwxyz", 2), 3);
  });
  it("guesses the nearest option within a third of its length, or one the word begins", () => {
    assert.equal(closest("plna", ["plan", "assess"]), "plan");
    assert.equal(closest("Plan", ["plan", "assess"]), "plan");
    assert.equal(closest("timeout", ["adapter", "timeout_seconds"]), "timeout_seconds");
    assert.equal(closest("execute", ["plan", "assess"]), undefined);
    assert.equal(closest("plan", ["plan", "assess"]), undefined, "nothing to guess for a value that is allowed");
  });
});
