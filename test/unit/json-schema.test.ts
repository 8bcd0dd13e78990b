// `adapter-command schema`: the envelope's JSON Schema, generated from the validator's own schema, must agree with it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { envelopeJsonSchema, inputJsonSchema } from "../../src/a2a/input-schema.js";
import { readInputFile } from "../../src/commands/input-file.js";
import { validateInput } from "../../src/commands/validate.js";
import { nearMissPattern } from "../../src/core/envelope/envelope-key.js";
import type { Problem } from "../../src/core/envelope/problems.js";
import { ADAPTER_URI as URI } from "../../src/core/uris.js";
import { EXAMPLES, ROOT } from "../helpers/cli.js";
import { envelope, RUNNER, withRequest } from "../helpers/envelopes.js";
import { envelopeOfFile } from "../helpers/examples.js";

const RUNS = ".aiwg/ops/runs/";

type Json = Record<string, unknown>;
// ajv-formats is CommonJS: under ESM its default export is the `default` of what the import gives.
const addFormats = addFormatsModule.default;

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

// --- The input file's schema (`adapter-command schema`): three shapes, every field explained, and ajv agrees ---

const FILES = join(ROOT, "test/fixtures/files");

/** Every .json file below `dir`, sorted. */
function jsonFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(".json"))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

function compileInput() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false });
  addFormats(ajv);
  return ajv.compile(inputJsonSchema());
}

/** Conditions the analysis states across fields (shape, echo, near-miss keys): not fields themselves. */
const CONDITIONS = new Set(["if", "then", "else", "not", "contains", "propertyNames"]);

/** Each field's schema: every `properties` entry, anywhere in the schema but in conditions. */
function fieldsOf(node: unknown, at = "#", out: Array<[string, Json]> = []): Array<[string, Json]> {
  if (Array.isArray(node)) {
    for (const [i, item] of node.entries()) fieldsOf(item, `${at}/${i}`, out);
  } else if (typeof node === "object" && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (CONDITIONS.has(key)) continue;
      if (key === "properties" && typeof value === "object" && value !== null)
        for (const [field, schema] of Object.entries(value))
          if (typeof schema === "object" && schema !== null && !("$ref" in schema) && Object.keys(schema).length > 1)
            out.push([`${at}/properties/${field}`, schema as Json]);
      fieldsOf(value, `${at}/${key}`, out);
    }
  }
  return out;
}

describe("inputJsonSchema", () => {
  it("is draft 2020-12 with an $id, and plain JSON", () => {
    const schema = inputJsonSchema();
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    assert.equal(schema.$id, `${URI}/adapter-command.schema.json`);
    assert.deepEqual(JSON.parse(JSON.stringify(schema)), schema);
    compileInput(); // ajv in strict mode finds nothing to complain about
  });

  it("every field has a title, a description and examples that the field's own schema accepts", () => {
    const schema = inputJsonSchema();
    const fields = fieldsOf(schema.$defs);
    assert.ok(fields.length >= 30, `${fields.length} fields`);
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ ...schema, $id: "root" });
    for (const [where, field] of fields) {
      assert.equal(typeof field.title, "string", `${where} has a title`);
      assert.equal(typeof field.description, "string", `${where} has a description`);
      assert.ok(Array.isArray(field.examples) && field.examples.length > 0, `${where} has examples`);
      const check = ajv.compile({ $defs: schema.$defs, ...field, $id: undefined });
      for (const example of field.examples as unknown[])
        assert.ok(check(example), `${where}: example ${JSON.stringify(example)} ${JSON.stringify(check.errors)}`);
    }
  });

  it("a default is given exactly where a missing field means a value", () => {
    const schema = inputJsonSchema();
    const defaults = fieldsOf(schema.$defs)
      .filter(([, field]) => "default" in field)
      .map(([where, field]) => `${where.split("/properties/").at(-1)}=${JSON.stringify(field.default)}`);
    assert.deepEqual([...new Set(defaults)].sort(), [
      "blocking=true",
      'kind="message"',
      "timeout_seconds=300",
      'working_dir="/workspace"',
    ]);
  });

  it("schema --envelope is the bare envelope's part of it", () => {
    const { $defs } = inputJsonSchema() as { $defs: Record<string, Json> };
    const { $schema: _d, $id: _i, title: _t, description: _s, ...bare } = envelopeJsonSchema();
    assert.deepEqual(bare, $defs.BareEnvelope);
    assert.ok("$schema" in ((bare.properties as Json) ?? {}), "a bare envelope may say which schema it follows");
  });

  it("tells the three shapes apart as the validator does, and accepts $schema in each", () => {
    const validate = compileInput();
    const message = { role: "user", parts: [{ kind: "text", text: "hi" }] };
    const bound = { $schema: "./schema/adapter-command.schema.json" };
    assert.equal(validate({ ...bound, message }), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...bound, ...message }), true);
    assert.equal(validate({ ...bound, ...envelope() }), true);
    assert.equal(validate({ ...bound, ...envelope(), extra: 1 }), false, "a bare envelope stays closed");
    assert.equal(validate({ message: { role: "user", parts: [] } }), false, "an echo needs a text part");
    const data = { kind: "data", data: { a: 1 } };
    assert.equal(validate({ message: { role: "user", parts: [...message.parts, data] } }), false, "text/plain only");
    const html = { kind: "text", text: "<b>", mediaType: "text/html" };
    assert.equal(validate({ message: { role: "user", parts: [html] } }), false, "another media type");
    const plain = { kind: "text", text: "hi", mediaType: "Text/Plain; charset=utf-8" };
    assert.equal(validate({ message: { role: "user", parts: [plain] } }), true, "text/plain with a parameter");
    assert.equal(validate({ message: 5, role: "user", parts: message.parts }), false, "send params by `message`");
    assert.equal(validate({ message, mode: "plan" }), false, "envelope fields beside message");
  });
});

/**
 * The rules that no JSON Schema can state, by the code `validate` gives them. On any corpus file where ajv and
 * `validate` disagree, `validate` must be the one that refuses, and only for these.
 */
const BEYOND_JSON_SCHEMA: Record<string, { why: string; applies?: (problem: Problem) => boolean }> = {
  duplicate_key: { why: "a repeated key: JSON.parse, and so ajv, only ever sees the last one" },
  message_nul: { why: "a start limit, checked for adapter envelopes (CONTRACT section 2)" },
  too_many_parts: { why: "a start limit, checked for adapter envelopes (CONTRACT section 2)" },
  envelope_conflict: { why: "an envelope given twice and different: JSON Schema cannot compare two values" },
  envelope_key_mismatch: {
    why: "a key within two edits of the extension URI: no pattern can state an edit distance",
    applies: (problem) => !new RegExp(nearMissPattern(), "u").test(keyOf(problem.path)),
  },
  working_dir_outside: { why: "what is on disk: working_dir is mapped onto the workspace (the current directory)" },
};
const keyOf = (path: string) => (path.split("/").at(-1) ?? "").replaceAll("~1", "/").replaceAll("~0", "~");

describe("the input schema and validate agree on every corpus file", () => {
  const corpus = [...jsonFilesUnder(ENVELOPES), ...jsonFilesUnder(FILES)];
  const validate = compileInput();
  const used = new Set<string>();

  it("the corpus has valid and invalid files of every shape", () => {
    assert.ok(corpus.length >= 30, `${corpus.length} files`);
  });

  for (const file of corpus) {
    const name = relative(ROOT, file);
    it(name, async () => {
      const text = readFileSync(file, "utf8");
      const verdict = validateInput(file, await readInputFile(file), undefined);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        // ajv checks values, not text: a syntax error is validate's alone.
        assert.deepEqual(
          verdict.errors.map((e) => e.code),
          ["json_syntax"],
        );
        return;
      }
      const accepted = validate(value);
      if (accepted === verdict.valid) return;
      assert.equal(accepted, true, `ajv refused what validate accepts: ${JSON.stringify(validate.errors)}`);
      for (const problem of verdict.errors) {
        const rule = BEYOND_JSON_SCHEMA[problem.code];
        assert.ok(rule && (rule.applies?.(problem) ?? true), `ajv accepted ${problem.code} at ${problem.path}`);
        used.add(problem.code);
      }
    });
  }

  it("every rule named as beyond JSON Schema is met in the corpus (the list is not stale)", () => {
    assert.deepEqual([...used].sort(), Object.keys(BEYOND_JSON_SCHEMA).sort());
  });
});
