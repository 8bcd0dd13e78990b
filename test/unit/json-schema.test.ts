// `adapter-command schema`: the envelope's JSON Schema, generated from the validator's own schema, must agree with it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { analyzeInput } from "../../src/core/envelope.js";
import { envelopeJsonSchema } from "../../src/core/json-schema.js";
import { ADAPTER_URI as URI } from "../../src/core/uris.js";
import { EXAMPLES } from "../helpers/cli.js";
import { envelope, RUNNER, withRequest } from "../helpers/envelopes.js";
import { envelopeOfFile } from "../helpers/examples.js";

const RUNS = ".aiwg/ops/runs/";

type Json = Record<string, unknown>;

const ENVELOPES = join(EXAMPLES, "envelopes");
const validExamples = readdirSync(ENVELOPES)
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => ({ name, value: JSON.parse(readFileSync(join(ENVELOPES, name), "utf8")) as unknown }))
  .map(({ name, value }) => ({ name, envelope: envelopeOfFile(value) }))
  .filter((example) => example.envelope !== undefined);

function compile() {
  const ajv = new Ajv2020({ allErrors: true });
  return ajv.compile(envelopeJsonSchema());
}

describe("envelopeJsonSchema", () => {
  it("is a draft 2020-12 object schema with an $id", () => {
    const schema = envelopeJsonSchema();
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(schema.$id, `${URI}/envelope.schema.json`);
    assert.equal(schema.type, "object");
    assert.equal(schema.additionalProperties, false);
    assert.deepEqual([...((schema.required as string[] | undefined) ?? [])].sort(), ["adapter", "command", "mode"]);
  });

  it("is plain JSON (survives a round trip)", () => {
    const schema = envelopeJsonSchema();
    assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
  });

  it("the examples hold at least three adapter envelopes", () => {
    assert.ok(validExamples.length >= 3, validExamples.map((e) => e.name).join(", "));
  });

  for (const example of validExamples) {
    it(`accepts the envelope of examples/envelopes/${example.name}`, () => {
      const validate = compile();
      assert.equal(validate(example.envelope), true, JSON.stringify(validate.errors));
    });
  }

  const rejected: Array<[string, Json]> = [
    ["an unknown key", envelope({ shell: true })],
    ["mode Plan", envelope({ mode: "Plan" })],
    ["mode run", envelope({ mode: "run" })],
    ["another adapter", envelope({ adapter: "other" })],
    ["a missing command", { adapter: "sandbox-agent-runner", mode: "plan" }],
    ["a command of 3 items", envelope({ command: ["node", RUNNER, "--request"] })],
    ["a command of 5 items", envelope({ command: ["node", RUNNER, "--request", `${RUNS}a.json`, "x"] })],
    ["bash instead of node", envelope({ command: ["bash", RUNNER, "--request", `${RUNS}a.json`] })],
    ["a request outside the allowed folders", withRequest(".aiwg/ops/other/a.json")],
    ["a request with a prefix off the segment boundary", withRequest(".aiwg/ops/runsX/a.json")],
    ["the runs folder itself", withRequest(".aiwg/ops/runs")],
    ["an absolute request", withRequest("/etc/passwd")],
    ["a request that climbs out with ..", withRequest(`${RUNS}../../etc/passwd`)],
    ["a ./ request", withRequest(`./${RUNS}a.json`)],
    ["a request with a backslash", withRequest(`${RUNS}a\\b.json`)],
    ["a request with NUL", withRequest(`${RUNS}a\u0000.json`)],
    ["a request with U+0085", withRequest(`${RUNS}a\u0085.json`)],
    ["an empty request", withRequest("")],
    ["a request that is not a string", withRequest(5)],
    ["a request over 1024 characters", withRequest(`${RUNS}${"a".repeat(1100)}`)],
    ["timeout 0", envelope({ timeout_seconds: 0 })],
    ["timeout 901", envelope({ timeout_seconds: 901 })],
    ["timeout 1.5", envelope({ timeout_seconds: 1.5 })],
    ['timeout "300"', envelope({ timeout_seconds: "300" })],
    ["timeout null", envelope({ timeout_seconds: null })],
    ["input_mode pty", envelope({ input_mode: "pty" })],
    ["working_dir with NUL", envelope({ working_dir: "a\u0000b" })],
  ];
  for (const [name, value] of rejected) {
    it(`rejects ${name}`, () => {
      const validate = compile();
      assert.equal(validate(value), false, `the schema accepted ${JSON.stringify(value)}`);
      assert.equal(analyzeInput(value).valid, false, "and so does the validator");
    });
  }

  const accepted: Array<[string, Json]> = [
    ["the minimal envelope", envelope()],
    ["every field", envelope({ working_dir: "/workspace", timeout_seconds: 900, input_mode: "text-line" })],
    ["timeout 1", envelope({ timeout_seconds: 1 })],
    ["a request under the adapter folder", withRequest(".aiwg/ops/adapters/sandbox-agent-runner/x/y.json")],
    ["a request with a ... segment", withRequest(`${RUNS}.../a.json`)],
    ["a request of exactly 1024 bytes", withRequest(`${RUNS}${"a".repeat(1024 - RUNS.length)}`)],
  ];
  for (const [name, value] of accepted) {
    it(`accepts ${name}, as the validator does`, () => {
      const validate = compile();
      assert.equal(validate(value), true, JSON.stringify(validate.errors));
      assert.equal(analyzeInput(value).valid, true);
    });
  }
});
