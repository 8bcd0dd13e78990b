// CONTRACT section 2: the three file shapes, the closed envelope, and problems with exact JSON Pointers.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { type Analysis, type Message, messageText, parseJsonText } from "../../src/core/envelope/envelope.js";
import type { Problem } from "../../src/core/envelope/problems.js";
import { ADAPTER_URI as URI } from "../../src/core/uris.js";
import { envelope, REQUEST, RUNNER, withRequest } from "../helpers/envelopes.js";

const ESCAPED_URI = "https:~1~1agentic-sandbox.aiwg.io~1extensions~1adapter-command~1v1";
const RUNS = ".aiwg/ops/runs/";
const ADAPTERS = ".aiwg/ops/adapters/sandbox-agent-runner/";
const bytes = (s: string) => Buffer.byteLength(s, "utf8");

type Json = Record<string, unknown>;

const without = (key: string): Json => envelope({ [key]: undefined });
const textPart = (text: string) => ({ kind: "text", text });
const message = (metadata?: Json, parts: unknown[] = [textPart("hello")]): Json => ({
  kind: "message",
  messageId: "m-1",
  role: "user",
  parts,
  ...(metadata ? { metadata } : {}),
});

/** The three file shapes (CONTRACT section 2) and where the envelope sits in each. */
const SHAPES = [
  {
    name: "A (send params)",
    wrap: (env: unknown): unknown => ({ message: message({ [URI]: env }) }),
    base: `/message/metadata/${ESCAPED_URI}`,
  },
  {
    name: "B (bare message)",
    wrap: (env: unknown): unknown => message({ [URI]: env }),
    base: `/metadata/${ESCAPED_URI}`,
  },
  { name: "C (bare envelope)", wrap: (env: unknown): unknown => env, base: "" },
] as const;

function errorsOf(analysis: Analysis): Problem[] {
  assert.equal(analysis.valid, false, `expected the input to be rejected, got ${JSON.stringify(analysis)}`);
  return analysis.valid ? [] : analysis.errors;
}

function envelopeOf(analysis: Analysis): Json {
  assert.equal(analysis.valid, true, `expected the input to be accepted, got ${JSON.stringify(analysis)}`);
  assert.equal(analysis.dispatch, "adapter-command");
  return analysis.valid && analysis.dispatch === "adapter-command" ? (analysis.envelope as Json) : {};
}

interface Pass {
  name: string;
  envelope: Json;
  /** Fields the normalized envelope must have (timeout_seconds defaults to 300). */
  expect?: Json;
}
interface Fail {
  name: string;
  envelope: Json;
  code: string;
  /** JSON Pointer relative to the envelope. */
  at: string;
  /** Text the message must contain, showing what was found. */
  found?: string;
}
interface Field {
  field: string;
  pass: Pass[];
  fail: Fail[];
}

const longRequest = (n: number) => `${RUNS}${"a".repeat(n - bytes(RUNS))}`;
// 2-byte characters: far fewer than 1024 characters, but the limit counts bytes.
const multiByte1024 = `${RUNS}a${"é".repeat((1024 - bytes(RUNS) - 1) / 2)}`;
const multiByte1025 = `${RUNS}${"é".repeat((1025 - bytes(RUNS)) / 2)}`;

const TABLE: Field[] = [
  {
    field: "adapter",
    pass: [{ name: "sandbox-agent-runner", envelope: envelope(), expect: { adapter: "sandbox-agent-runner" } }],
    fail: [
      { name: "missing", envelope: without("adapter"), code: "missing_field", at: "/adapter" },
      {
        name: "another adapter",
        envelope: envelope({ adapter: "other" }),
        code: "invalid_value",
        at: "/adapter",
        found: '"other"',
      },
      {
        name: "different case",
        envelope: envelope({ adapter: "Sandbox-Agent-Runner" }),
        code: "invalid_value",
        at: "/adapter",
        found: '"Sandbox-Agent-Runner"',
      },
      { name: "a number", envelope: envelope({ adapter: 5 }), code: "invalid_value", at: "/adapter", found: "5" },
    ],
  },
  {
    field: "mode",
    pass: [
      { name: "plan", envelope: envelope({ mode: "plan" }), expect: { mode: "plan" } },
      { name: "assess", envelope: envelope({ mode: "assess" }), expect: { mode: "assess" } },
    ],
    fail: [
      { name: "missing", envelope: without("mode"), code: "missing_field", at: "/mode" },
      {
        name: "Plan (case matters)",
        envelope: envelope({ mode: "Plan" }),
        code: "invalid_value",
        at: "/mode",
        found: '"Plan"',
      },
      { name: "run", envelope: envelope({ mode: "run" }), code: "invalid_value", at: "/mode", found: '"run"' },
    ],
  },
  {
    field: "command",
    pass: [
      {
        name: "the four allowlisted strings",
        envelope: envelope(),
        expect: { command: ["node", RUNNER, "--request", REQUEST] },
      },
    ],
    fail: [
      { name: "missing", envelope: without("command"), code: "missing_field", at: "/command" },
      {
        name: "a string",
        envelope: envelope({ command: "node" }),
        code: "wrong_type",
        at: "/command",
        found: '"node"',
      },
      {
        name: "bash instead of node",
        envelope: envelope({ command: ["bash", RUNNER, "--request", `${RUNS}a.json`] }),
        code: "invalid_value",
        at: "/command/0",
        found: '"bash"',
      },
      {
        name: "another runner",
        envelope: envelope({ command: ["node", "runner.mjs", "--request", `${RUNS}a.json`] }),
        code: "invalid_value",
        at: "/command/1",
        found: '"runner.mjs"',
      },
      {
        name: "--req instead of --request",
        envelope: envelope({ command: ["node", RUNNER, "--req", `${RUNS}a.json`] }),
        code: "invalid_value",
        at: "/command/2",
        found: '"--req"',
      },
      {
        name: "only three items",
        envelope: envelope({ command: ["node", RUNNER, "--request"] }),
        code: "missing_field",
        at: "/command/3",
      },
      {
        name: "a number as REQUEST",
        envelope: withRequest(5),
        code: "wrong_type",
        at: "/command/3",
        found: "5",
      },
    ],
  },
  {
    field: "REQUEST (command[3])",
    pass: [
      { name: "under .aiwg/ops/runs/", envelope: withRequest(`${RUNS}a.json`) },
      { name: "under the adapter folder", envelope: withRequest(`${ADAPTERS}examples/cycle-005-request.json`) },
      { name: "nested below .aiwg/ops/runs/", envelope: withRequest(`${RUNS}x/y/z.json`) },
      { name: "a dot-file name", envelope: withRequest(`${RUNS}.hidden`) },
      { name: 'a "..." segment is a name', envelope: withRequest(`${RUNS}.../a.json`) },
      { name: 'a "..a" segment is a name', envelope: withRequest(`${RUNS}..a`) },
      { name: "non-ASCII characters", envelope: withRequest(`${RUNS}日本語.json`) },
      { name: "exactly 1024 bytes (ASCII)", envelope: withRequest(longRequest(1024)) },
      { name: "exactly 1024 bytes (multi-byte)", envelope: withRequest(multiByte1024) },
    ],
    fail: [
      { name: "empty", envelope: withRequest(""), code: "request_empty", at: "/command/3" },
      {
        name: "prefix without a segment boundary (runsX)",
        envelope: withRequest(".aiwg/ops/runsX/a.json"),
        code: "request_outside_allowed",
        at: "/command/3",
        found: ".aiwg/ops/runsX/a.json",
      },
      {
        name: "prefix without a segment boundary (adapter folder)",
        envelope: withRequest(".aiwg/ops/adapters/sandbox-agent-runnerX/a.json"),
        code: "request_outside_allowed",
        at: "/command/3",
      },
      {
        name: "elsewhere in .aiwg",
        envelope: withRequest(".aiwg/ops/other/a.json"),
        code: "request_outside_allowed",
        at: "/command/3",
      },
      {
        name: "./-prefixed",
        envelope: withRequest(`./${RUNS}a.json`),
        code: "request_bad_segment",
        at: "/command/3",
        found: `./${RUNS}a.json`,
      },
      { name: "a . segment", envelope: withRequest(`${RUNS}./a.json`), code: "request_bad_segment", at: "/command/3" },
      {
        name: "a .. segment",
        envelope: withRequest(`${RUNS}../a.json`),
        code: "request_bad_segment",
        at: "/command/3",
      },
      {
        name: "a .. escape",
        envelope: withRequest(`${RUNS}../../../etc/passwd`),
        code: "request_bad_segment",
        at: "/command/3",
      },
      { name: "a trailing ..", envelope: withRequest(`${RUNS}a/..`), code: "request_bad_segment", at: "/command/3" },
      {
        name: "an empty segment",
        envelope: withRequest(`${RUNS}/a.json`),
        code: "request_bad_segment",
        at: "/command/3",
      },
      { name: "a trailing slash", envelope: withRequest(`${RUNS}a/`), code: "request_bad_segment", at: "/command/3" },
      {
        name: "the runs folder itself, with a slash",
        envelope: withRequest(RUNS),
        code: "request_bad_segment",
        at: "/command/3",
      },
      {
        name: "the runs folder itself, without a slash",
        envelope: withRequest(".aiwg/ops/runs"),
        code: "request_outside_allowed",
        at: "/command/3",
      },
      {
        name: "the adapter folder itself, with a slash",
        envelope: withRequest(ADAPTERS),
        code: "request_bad_segment",
        at: "/command/3",
      },
      {
        name: "the adapter folder itself, without a slash",
        envelope: withRequest(".aiwg/ops/adapters/sandbox-agent-runner"),
        code: "request_outside_allowed",
        at: "/command/3",
      },
      {
        name: "absolute",
        envelope: withRequest(`/${RUNS}a.json`),
        code: "request_absolute",
        at: "/command/3",
        found: `/${RUNS}a.json`,
      },
      {
        name: "absolute /etc/passwd",
        envelope: withRequest("/etc/passwd"),
        code: "request_absolute",
        at: "/command/3",
      },
      {
        name: "a backslash",
        envelope: withRequest(`${RUNS}a\\b.json`),
        code: "request_backslash",
        at: "/command/3",
      },
      {
        name: "a backslash separator",
        envelope: withRequest(".aiwg\\ops\\runs\\a.json"),
        code: "request_backslash",
        at: "/command/3",
      },
      {
        name: "NUL",
        envelope: withRequest(`${RUNS}a\u0000.json`),
        code: "request_control_character",
        at: "/command/3",
      },
      {
        name: "U+0001",
        envelope: withRequest(`${RUNS}a\u0001.json`),
        code: "request_control_character",
        at: "/command/3",
      },
      {
        name: "newline",
        envelope: withRequest(`${RUNS}a\n.json`),
        code: "request_control_character",
        at: "/command/3",
      },
      {
        name: "U+007F (DEL)",
        envelope: withRequest(`${RUNS}a\u007f.json`),
        code: "request_control_character",
        at: "/command/3",
      },
      {
        name: "U+0085 (NEL)",
        envelope: withRequest(`${RUNS}a\u0085.json`),
        code: "request_control_character",
        at: "/command/3",
      },
      {
        name: "U+009F",
        envelope: withRequest(`${RUNS}a\u009f.json`),
        code: "request_control_character",
        at: "/command/3",
      },
      {
        name: "1025 bytes (ASCII)",
        envelope: withRequest(longRequest(1025)),
        code: "request_too_long",
        at: "/command/3",
        found: "1025",
      },
      {
        name: "1025 bytes in fewer than 1024 characters (multi-byte)",
        envelope: withRequest(multiByte1025),
        code: "request_too_long",
        at: "/command/3",
        found: "1025",
      },
    ],
  },
  {
    field: "working_dir",
    pass: [
      { name: "absent", envelope: envelope() },
      { name: "empty", envelope: envelope({ working_dir: "" }), expect: { working_dir: "" } },
      { name: "/workspace", envelope: envelope({ working_dir: "/workspace" }), expect: { working_dir: "/workspace" } },
      { name: "/workspace/sub", envelope: envelope({ working_dir: "/workspace/sub" }) },
      { name: "relative", envelope: envelope({ working_dir: "sub/dir" }), expect: { working_dir: "sub/dir" } },
    ],
    fail: [
      { name: "NUL", envelope: envelope({ working_dir: "a\u0000b" }), code: "working_dir_nul", at: "/working_dir" },
      { name: "a number", envelope: envelope({ working_dir: 5 }), code: "wrong_type", at: "/working_dir", found: "5" },
      {
        name: "null",
        envelope: envelope({ working_dir: null }),
        code: "wrong_type",
        at: "/working_dir",
        found: "null",
      },
    ],
  },
  {
    field: "timeout_seconds",
    pass: [
      { name: "absent: default 300", envelope: envelope(), expect: { timeout_seconds: 300 } },
      { name: "1", envelope: envelope({ timeout_seconds: 1 }), expect: { timeout_seconds: 1 } },
      { name: "900", envelope: envelope({ timeout_seconds: 900 }), expect: { timeout_seconds: 900 } },
      { name: "60", envelope: envelope({ timeout_seconds: 60 }), expect: { timeout_seconds: 60 } },
    ],
    fail: [
      {
        name: "0",
        envelope: envelope({ timeout_seconds: 0 }),
        code: "out_of_range",
        at: "/timeout_seconds",
        found: "0",
      },
      {
        name: "-1",
        envelope: envelope({ timeout_seconds: -1 }),
        code: "out_of_range",
        at: "/timeout_seconds",
        found: "-1",
      },
      {
        name: "901",
        envelope: envelope({ timeout_seconds: 901 }),
        code: "out_of_range",
        at: "/timeout_seconds",
        found: "901",
      },
      {
        name: "1.5",
        envelope: envelope({ timeout_seconds: 1.5 }),
        code: "not_integer",
        at: "/timeout_seconds",
        found: "1.5",
      },
      {
        name: '"300" (a string)',
        envelope: envelope({ timeout_seconds: "300" }),
        code: "wrong_type",
        at: "/timeout_seconds",
        found: '"300"',
      },
      {
        name: "null",
        envelope: envelope({ timeout_seconds: null }),
        code: "wrong_type",
        at: "/timeout_seconds",
        found: "null",
      },
      {
        name: "true",
        envelope: envelope({ timeout_seconds: true }),
        code: "wrong_type",
        at: "/timeout_seconds",
        found: "true",
      },
    ],
  },
  {
    field: "input_mode",
    pass: [
      { name: "absent", envelope: envelope() },
      { name: "text-line", envelope: envelope({ input_mode: "text-line" }), expect: { input_mode: "text-line" } },
    ],
    fail: [
      {
        name: "pty",
        envelope: envelope({ input_mode: "pty" }),
        code: "invalid_value",
        at: "/input_mode",
        found: '"pty"',
      },
      {
        name: "Text-Line",
        envelope: envelope({ input_mode: "Text-Line" }),
        code: "invalid_value",
        at: "/input_mode",
        found: '"Text-Line"',
      },
      {
        name: "null",
        envelope: envelope({ input_mode: null }),
        code: "invalid_value",
        at: "/input_mode",
        found: "null",
      },
    ],
  },
  {
    field: "the closed key set",
    pass: [
      {
        name: "every known key",
        envelope: envelope({ working_dir: "/workspace", timeout_seconds: 10, input_mode: "text-line" }),
        expect: { working_dir: "/workspace", timeout_seconds: 10, input_mode: "text-line" },
      },
    ],
    fail: [
      { name: "shell: true", envelope: envelope({ shell: true }), code: "unknown_field", at: "/shell", found: "shell" },
      { name: "env", envelope: envelope({ env: {} }), code: "unknown_field", at: "/env", found: "env" },
      {
        name: "a key with ~ and /",
        envelope: envelope({ "a/b~c": 1 }),
        code: "unknown_field",
        at: "/a~1b~0c",
        found: "a/b~c",
      },
    ],
  },
];

describe("analyzeInput: the envelope table, in each file shape", () => {
  for (const shape of SHAPES) {
    describe(`shape ${shape.name}`, () => {
      for (const row of TABLE) {
        describe(row.field, () => {
          for (const pass of row.pass) {
            it(`accepts ${pass.name}`, () => {
              const analysis = analyzeInput(shape.wrap(pass.envelope));
              const normalized = envelopeOf(analysis);
              assert.equal(
                analysis.valid && analysis.dispatch === "adapter-command" && analysis.envelopePath,
                shape.base,
              );
              const expected = { timeout_seconds: 300, ...pass.envelope, ...pass.expect };
              assert.deepEqual(normalized, expected);
            });
          }
          for (const fail of row.fail) {
            it(`rejects ${fail.name} (${fail.code} at ${fail.at})`, () => {
              const analysis = analyzeInput(shape.wrap(fail.envelope));
              const errors = errorsOf(analysis);
              assert.equal(analysis.dispatch, "adapter-command", "an invalid envelope is never downgraded to echo");
              const path = `${shape.base}${fail.at}`;
              const hit = errors.find((e) => e.code === fail.code && e.path === path);
              assert.ok(hit, `expected ${fail.code} at ${path}, got ${JSON.stringify(errors)}`);
              for (const error of errors)
                assert.equal(error.path, path, `only ${path} is at fault: ${JSON.stringify(error)}`);
              assert.match(hit.message, /expected/, `the message says what was expected: ${hit.message}`);
              if (fail.found !== undefined)
                assert.ok(hit.message.includes(fail.found), `the message shows ${fail.found}: ${hit.message}`);
            });
          }
        });
      }
    });
  }
});

describe("analyzeInput: messages of missing fields name what was expected", () => {
  it("a missing adapter names the adapter that is expected, not an object", () => {
    const [error] = errorsOf(analyzeInput(without("adapter")));
    assert.equal(error?.code, "missing_field");
    assert.doesNotMatch(error?.message ?? "", /expected an object/);
    assert.match(error?.message ?? "", /sandbox-agent-runner/);
  });
  it("a missing mode names plan and assess, not an object", () => {
    const [error] = errorsOf(analyzeInput(without("mode")));
    assert.doesNotMatch(error?.message ?? "", /expected an object/);
    assert.match(error?.message ?? "", /plan/);
    assert.match(error?.message ?? "", /assess/);
  });
  it("a missing command asks for an array, not an object", () => {
    const [error] = errorsOf(analyzeInput(without("command")));
    assert.doesNotMatch(error?.message ?? "", /expected an object/);
    assert.match(error?.message ?? "", /array/);
  });
  it("a command of 5 items says 4 were expected and 5 found", () => {
    const errors = errorsOf(analyzeInput(envelope({ command: ["node", RUNNER, "--request", `${RUNS}a.json`, "x"] })));
    assert.ok(errors.length > 0);
    for (const error of errors) assert.ok(error.path.startsWith("/command"), JSON.stringify(error));
    assert.ok(
      errors.some((e) => /\b4\b/.test(e.message) && /\b5\b/.test(e.message)),
      `expected a message with "4" expected and "5" found, got ${JSON.stringify(errors)}`,
    );
  });
});

describe("analyzeInput: every problem at once", () => {
  it("three separate faults give three problems, each at its own path", () => {
    const value = { message: message({ [URI]: envelope({ mode: "Plan", timeout_seconds: "300", shell: true }) }) };
    const errors = errorsOf(analyzeInput(value));
    const base = `/message/metadata/${ESCAPED_URI}`;
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]).sort(),
      [
        [`${base}/mode`, "invalid_value"],
        [`${base}/shell`, "unknown_field"],
        [`${base}/timeout_seconds`, "wrong_type"],
      ].sort(),
    );
  });
  it("several REQUEST faults are all reported", () => {
    const errors = errorsOf(analyzeInput(withRequest(`${RUNS}a\\b/../\u0001`)));
    const codes = new Set(errors.map((e) => e.code));
    for (const code of ["request_backslash", "request_bad_segment", "request_control_character"])
      assert.ok(codes.has(code), `${code} in ${JSON.stringify(errors)}`);
  });
  it("an absolute REQUEST with a .. segment reports the .. segment too", () => {
    const errors = errorsOf(analyzeInput(withRequest(`/${RUNS}../../etc/passwd`)));
    const codes = new Set(errors.map((e) => e.code));
    for (const code of ["request_absolute", "request_bad_segment"])
      assert.ok(codes.has(code), `${code} in ${JSON.stringify(errors)}`);
  });
  it("a fault in the message and one in the envelope are both reported", () => {
    const value = { message: { ...message({ [URI]: envelope({ timeout_seconds: 0 }) }), role: "agent" } };
    const errors = errorsOf(analyzeInput(value));
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]).sort(),
      [
        ["/message/role", "invalid_value"],
        [`/message/metadata/${ESCAPED_URI}/timeout_seconds`, "out_of_range"],
      ].sort(),
    );
  });
  it("an empty object is a bare envelope missing its three required fields", () => {
    const errors = errorsOf(analyzeInput({}));
    assert.deepEqual(errors.map((e) => [e.path, e.code]).sort(), [
      ["/adapter", "missing_field"],
      ["/command", "missing_field"],
      ["/mode", "missing_field"],
    ]);
  });
});

describe("analyzeInput: where the envelope is", () => {
  it("envelope fields beside message (A) or parts (B) are envelope_misplaced, with the rest still checked", () => {
    const a = analyzeInput({ ...envelope({ timeout_seconds: 5 }), message: message() });
    assert.equal(a.dispatch, "adapter-command");
    assert.deepEqual(
      errorsOf(a).map((e) => [e.path, e.code]),
      ["/adapter", "/mode", "/command", "/timeout_seconds"].map((path) => [path, "envelope_misplaced"]),
    );
    assert.match(errorsOf(a)[0]?.message ?? "", new RegExp(`inside /message/metadata/${ESCAPED_URI}`));
    const b = analyzeInput({ adapter: "sandbox-agent-runner", role: "user" });
    assert.deepEqual(
      errorsOf(b).map((e) => e.code),
      ["envelope_misplaced", "missing_field"],
    );
  });
  it("a value nested deeper than 100 levels is too_deep, whatever the shape", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 99; i++) deep = [deep]; // with the object around it: 100 levels, which is fine
    assert.deepEqual(
      errorsOf(analyzeInput({ ...envelope(), x: deep })).map((e) => e.code),
      ["unknown_field"],
    );
    const deeper = [deep];
    for (const value of [{ ...envelope(), x: deeper }, { message: message({ [URI]: envelope(), x: [deep] }) }]) {
      assert.deepEqual(
        errorsOf(analyzeInput(value)).map((e) => [e.path, e.code]),
        [["", "too_deep"]],
      );
    }
  });
  it("shape A also takes the envelope from the send params' top-level metadata", () => {
    const analysis = analyzeInput({ message: message(), metadata: { [URI]: envelope({ mode: "assess" }) } });
    assert.equal(envelopeOf(analysis).mode, "assess");
    assert.equal(
      analysis.valid && analysis.dispatch === "adapter-command" && analysis.envelopePath,
      `/metadata/${ESCAPED_URI}`,
    );
  });
  it("problems of a top-level envelope point into /metadata", () => {
    const errors = errorsOf(
      analyzeInput({ message: message(), metadata: { [URI]: envelope({ timeout_seconds: 901 }) } }),
    );
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]),
      [[`/metadata/${ESCAPED_URI}/timeout_seconds`, "out_of_range"]],
    );
  });
  it("both locations present and equal: accepted", () => {
    const analysis = analyzeInput({ message: message({ [URI]: envelope() }), metadata: { [URI]: envelope() } });
    assert.equal(envelopeOf(analysis).mode, "plan");
  });
  it("both locations present, equal up to key order: accepted", () => {
    const reordered = Object.fromEntries(Object.entries(envelope()).reverse());
    const analysis = analyzeInput({ message: message({ [URI]: envelope() }), metadata: { [URI]: reordered } });
    assert.equal(envelopeOf(analysis).adapter, "sandbox-agent-runner");
  });
  it("both locations present and different: envelope_conflict", () => {
    const analysis = analyzeInput({
      message: message({ [URI]: envelope() }),
      metadata: { [URI]: envelope({ mode: "assess" }) },
    });
    const errors = errorsOf(analysis);
    assert.equal(analysis.dispatch, "adapter-command");
    const conflict = errors.find((e) => e.code === "envelope_conflict");
    assert.ok(conflict, JSON.stringify(errors));
    assert.ok(
      [`/metadata/${ESCAPED_URI}`, `/message/metadata/${ESCAPED_URI}`].includes(conflict.path),
      `points at one of the envelopes: ${conflict.path}`,
    );
    assert.match(conflict.message, /expected/);
  });
  it("an envelope that is null is rejected, not treated as absent", () => {
    const analysis = analyzeInput({ message: message({ [URI]: null }) });
    const errors = errorsOf(analysis);
    assert.equal(analysis.dispatch, "adapter-command");
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]),
      [[`/message/metadata/${ESCAPED_URI}`, "wrong_type"]],
    );
  });
  it("an invalid envelope with text parts is never downgraded to echo", () => {
    const analysis = analyzeInput({ message: message({ [URI]: envelope({ mode: "x" }) }, [textPart("hi")]) });
    errorsOf(analysis);
    assert.equal(analysis.dispatch, "adapter-command");
  });
  it("other metadata keys do not make an envelope", () => {
    const analysis = analyzeInput({ message: message({ "https://example.com/other": envelope() }) });
    assert.equal(analysis.valid, true);
    assert.equal(analysis.dispatch, "echo");
  });
});

describe("analyzeInput: the echo dispatch", () => {
  it("shape A without an envelope and with a text part: echo", () => {
    const analysis = analyzeInput({ message: message(undefined, [textPart("one"), textPart("two")]) });
    assert.equal(analysis.valid, true);
    assert.equal(analysis.dispatch, "echo");
    assert.equal(analysis.valid && analysis.dispatch === "echo" && messageText(analysis.message), "one\ntwo");
  });
  it("shape B without an envelope and with a text part: echo", () => {
    const analysis = analyzeInput({ role: "user", parts: [textPart("hi")] });
    assert.equal(analysis.valid, true);
    assert.equal(analysis.dispatch, "echo");
  });
  it("no parts at all: echo_without_text at /message/parts (invalid params)", () => {
    const analysis = analyzeInput({ message: message(undefined, []) });
    assert.equal(analysis.dispatch, "echo");
    assert.deepEqual(
      errorsOf(analysis).map((e) => [e.path, e.code]),
      [["/message/parts", "echo_without_text"]],
    );
    assert.deepEqual(
      errorsOf(analyzeInput({ role: "user", parts: [] })).map((e) => [e.path, e.code]),
      [["/parts", "echo_without_text"]],
    );
  });
  // text/plain is the card's only input mode: every other part is named, even beside a text part (CONTRACT 3.4).
  const notText = [
    { name: "a data part", part: { kind: "data", data: { note: "x" } }, found: /a data part/ },
    {
      name: "a file part",
      part: { kind: "file", file: { uri: "file:///x", mimeType: "image/png" } },
      found: /image\/png/,
    },
    {
      name: "a text part of another media type",
      part: { kind: "text", text: "x", mediaType: "text/html" },
      found: /text\/html/,
    },
  ];
  for (const { name, part, found } of notText) {
    it(`${name}, alone or beside a text part: content_type_not_supported at its pointer`, () => {
      for (const parts of [[part], [textPart("hi"), part]]) {
        const index = parts.length - 1;
        const errors = errorsOf(analyzeInput({ message: message(undefined, parts) }));
        assert.deepEqual(
          errors.map((e) => [e.path, e.code]),
          [[`/message/parts/${index}`, "content_type_not_supported"]],
        );
        assert.match(errors[0]?.message ?? "", found);
        assert.deepEqual(
          errorsOf(analyzeInput({ role: "user", parts })).map((e) => [e.path, e.code]),
          [[`/parts/${index}`, "content_type_not_supported"]],
        );
      }
    });
  }
  it("a text part marked text/plain (any case, with parameters) is taken", () => {
    const part = { kind: "text", text: "hi", mediaType: "Text/Plain; charset=utf-8" };
    assert.equal(analyzeInput({ message: message(undefined, [part]) }).valid, true);
  });
  it("a message without parts is rejected at /message/parts", () => {
    const errors = errorsOf(analyzeInput({ message: { role: "user" } }));
    assert.ok(
      errors.some((e) => e.path === "/message/parts"),
      JSON.stringify(errors),
    );
  });
  it("a text part whose text is not a string is rejected", () => {
    const errors = errorsOf(analyzeInput({ message: message(undefined, [{ kind: "text", text: 5 }]) }));
    assert.ok(
      errors.some((e) => e.path === "/message/parts/0/text" && e.code === "wrong_type"),
      JSON.stringify(errors),
    );
  });
  it("an agent message is rejected at /message/role", () => {
    const errors = errorsOf(analyzeInput({ message: { ...message(), role: "agent" } }));
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]),
      [["/message/role", "invalid_value"]],
    );
    assert.ok(errors[0]?.message.includes('"agent"'));
  });
});

describe("analyzeInput: not an object", () => {
  const cases: Array<[string, unknown, string]> = [
    ["null", null, "null"],
    ["an array", [], "array"],
    ["a string", "hello", "string"],
    ["a number", 42, "number"],
    ["a boolean", true, "boolean"],
  ];
  for (const [name, value, found] of cases) {
    it(`${name}: wrong_type at the root`, () => {
      const analysis = analyzeInput(value);
      const errors = errorsOf(analysis);
      assert.deepEqual(
        errors.map((e) => [e.path, e.code]),
        [["", "wrong_type"]],
      );
      assert.match(errors[0]?.message ?? "", /expected/);
      assert.ok(errors[0]?.message.includes(found), errors[0]?.message);
    });
  }
});

describe("parseJsonText", () => {
  const problemOf = (text: string): Problem => {
    const parsed = parseJsonText(text);
    assert.equal(parsed.ok, false, `expected a syntax error for ${JSON.stringify(text)}`);
    return parsed.ok ? { path: "", code: "", message: "" } : parsed.problem;
  };
  it("parses valid JSON", () => {
    assert.deepEqual(parseJsonText('{"a": [1, "x"]}'), { ok: true, value: { a: [1, "x"] } });
  });
  it("skips a byte order mark", () => {
    assert.deepEqual(parseJsonText('\ufeff{"a": 1}'), { ok: true, value: { a: 1 } });
  });
  it("a missing comma points at the next token", () => {
    const problem = problemOf('{\n  "adapter": "x",\n  "mode": "plan"\n  "command": []\n}');
    assert.equal(problem.code, "json_syntax");
    assert.equal(problem.path, "");
    assert.equal(problem.line, 4);
    assert.equal(problem.column, 3);
    assert.match(problem.message, /expected/);
  });
  it("a missing comma on the first line points at the next token", () => {
    const problem = problemOf('{"a": 1 "b": 2}');
    assert.equal(problem.line, 1);
    assert.equal(problem.column, 9);
  });
  it("text after the value: the message gives no character offset of its own (line and column do that)", () => {
    const problem = problemOf('{"a": 1} x');
    assert.equal(problem.message, "expected valid JSON, found: Unexpected non-whitespace character after JSON");
    assert.deepEqual([problem.line, problem.column], [1, 10]);
  });
  it("columns count characters: an emoji before the error is one column", () => {
    const problem = problemOf('{"😀": 1 "b": 2}');
    assert.deepEqual([problem.line, problem.column], [1, 9]);
  });
  it("unterminated input points at the end", () => {
    const problem = problemOf('{\n  "a": 1,\n  "b": ');
    assert.equal(problem.line, 3);
    assert.equal(problem.column, 8);
  });
  it("empty input is line 1, column 1", () => {
    const problem = problemOf("");
    assert.equal(problem.line, 1);
    assert.equal(problem.column, 1);
  });
  it("an unexpected token points at that token, not at the end of the input", () => {
    const problem = problemOf('{\n  "a": ,\n  "b": 2\n}');
    assert.equal(problem.line, 2);
    assert.equal(problem.column, 8);
  });
  it("a trailing comma points at the comma, and says so", () => {
    const problem = problemOf("[1,]\n\n\n");
    assert.equal(problem.line, 1);
    assert.equal(problem.column, 3);
    assert.match(problem.message, /^expected another value after this comma, found "\]"/);
    const object = problemOf('{"a": 1,\n\n}');
    assert.deepEqual([object.line, object.column], [1, 8]);
    assert.match(object.message, /^expected another member after this comma, found "}"/);
  });
  it("columns count characters after a multi-byte character", () => {
    const problem = problemOf('{"é": 1 "b": 2}');
    assert.equal(problem.line, 1);
    assert.equal(problem.column, 9);
  });
});

describe("messageText", () => {
  const msg = (parts: unknown[]): Message => ({ role: "user", parts }) as Message;
  const coreText = (text: string) => ({ type: "text", text });
  it("joins text parts with a newline", () => {
    assert.equal(messageText(msg([coreText("a"), coreText("b"), coreText("c")])), "a\nb\nc");
  });
  it("skips data and file parts", () => {
    assert.equal(
      messageText(msg([coreText("a"), { type: "data", data: {} }, { type: "file" }, coreText("b")])),
      "a\nb",
    );
  });
  it("keeps newlines inside parts and empty texts", () => {
    assert.equal(messageText(msg([coreText("a\nb"), coreText(""), coreText("c")])), "a\nb\n\nc");
  });
  it("one part: its text, no trailing newline", () => {
    assert.equal(messageText(msg([coreText("only")])), "only");
  });
  it("no message or no text parts: empty", () => {
    assert.equal(messageText(undefined), "");
    assert.equal(messageText(msg([{ type: "data", data: {} }])), "");
  });
});

describe("parseJsonText and messages: hostile and unusual input", () => {
  it("JSON nested too deep to scan is still a json_syntax problem, not a crash", () => {
    const parsed = parseJsonText(`${"[".repeat(20_000)}x`);
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.equal(parsed.problem.code, "json_syntax");
  });
  it("a syntax message does not repeat the file's content", () => {
    const parsed = parseJsonText(`${"[".repeat(50)}x\n`);
    assert.equal(parsed.ok, false);
    if (!parsed.ok) assert.doesNotMatch(parsed.problem.message, /\[\[\[|is not valid JSON/);
  });
  it("a bound other than timeout_seconds names its own limit", () => {
    const analysis = analyzeInput({ message: message(), configuration: { historyLength: -1 } });
    const [error] = errorsOf(analysis);
    assert.equal(error?.code, "out_of_range");
    assert.match(error?.message ?? "", /at least 0/);
    assert.doesNotMatch(error?.message ?? "", /900/);
  });
});

describe("analyzeInput: a metadata key that is almost the extension URI (envelope_key_mismatch)", () => {
  const NEAR_MISSES: Array<[string, string]> = [
    ["another scheme", "http://agentic-sandbox.aiwg.io/extensions/adapter-command/v1"],
    ["upper case", URI.toUpperCase()],
    ["one letter's case", URI.replace("adapter", "Adapter")],
    ["a trailing slash", `${URI}/`],
    ["another version", URI.replace(/v1$/, "v2")],
    ["a key ending in adapter-command/v1", "urn:example:adapter-command/v1"],
    ["a key containing extensions/adapter-command", "https://example.com/extensions/adapter-command"],
    ["a typo in the middle", URI.replace("adapter-command", "adaptr-command")],
    ["a typo in the host", URI.replace("sandbox", "sandbx")],
    ["blanks around it", ` ${URI} `],
  ];
  const LOCATIONS = [
    {
      name: "message.metadata",
      wrap: (key: string) => ({ message: message({ [key]: envelope() }) }),
      base: "/message/metadata",
    },
    {
      name: "the send params' metadata",
      wrap: (key: string) => ({ message: message(), metadata: { [key]: envelope() } }),
      base: "/metadata",
    },
    { name: "a bare message's metadata", wrap: (key: string) => message({ [key]: envelope() }), base: "/metadata" },
  ];
  for (const [name, key] of NEAR_MISSES) {
    for (const where of LOCATIONS) {
      it(`${name}, in ${where.name}: an error naming the key expected, never an echo`, () => {
        const analysis = analyzeInput(where.wrap(key));
        const errors = errorsOf(analysis);
        assert.equal(analysis.dispatch, "adapter-command");
        assert.deepEqual(
          errors.map((e) => [e.path, e.code]),
          [[`${where.base}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`, "envelope_key_mismatch"]],
        );
        assert.ok(errors[0]?.message.includes(`"${URI}"`), errors[0]?.message);
        assert.ok(errors[0]?.message.includes(JSON.stringify(key)), errors[0]?.message);
      });
    }
  }
  it("a near miss beside the exact key is still an error (which one was meant?)", () => {
    const analysis = analyzeInput({ message: message({ [URI]: envelope(), [`${URI}/`]: envelope() }) });
    assert.deepEqual(
      errorsOf(analysis).map((e) => e.code),
      ["envelope_key_mismatch"],
    );
  });
  it("a near miss and an invalid envelope: both reported", () => {
    const analysis = analyzeInput({ message: message({ [URI]: envelope({ mode: "x" }), [URI.toUpperCase()]: 1 }) });
    assert.deepEqual(
      errorsOf(analysis)
        .map((e) => e.code)
        .sort(),
      ["envelope_key_mismatch", "invalid_value"],
    );
  });
  for (const key of [
    "https://agentic-sandbox.aiwg.io/extensions/hitl-prompt/v1",
    "https://example.com/other",
    "adapter-command",
    "a2a-service-parameters",
  ]) {
    it(`an unrelated key (${key}) is not a near miss: echo`, () => {
      const analysis = analyzeInput({ message: message({ [key]: { x: 1 } }) });
      assert.equal(analysis.valid, true, JSON.stringify(analysis));
      assert.equal(analysis.dispatch, "echo");
    });
  }
});

describe("analyzeInput: the limits of the process start, checked with the envelope", () => {
  const withParts = (parts: unknown[]) => ({ message: message({ [URI]: envelope() }, parts) });
  const codesOf = (value: unknown) => {
    const analysis = analyzeInput(value);
    return analysis.valid ? [] : analysis.errors.map((e) => [e.path, e.code]);
  };
  it("a text part with a NUL: message_nul at that part's text", () => {
    assert.deepEqual(codesOf(withParts([textPart("ok"), textPart("a\u0000b")])), [
      ["/message/parts/1/text", "message_nul"],
    ]);
  });
  it("the joined text of exactly 64 KiB is accepted; one byte more is message_too_large", () => {
    const half = "a".repeat(32 * 1024);
    // Two parts joined by one newline: 32 KiB + 1 + (32 KiB - 1) bytes.
    assert.deepEqual(codesOf(withParts([textPart(half), textPart(half.slice(1))])), []);
    assert.deepEqual(codesOf(withParts([textPart(half), textPart(half)])), [["/message/parts", "message_too_large"]]);
  });
  it("the size counts UTF-8 bytes, not characters", () => {
    const euros = "€".repeat(Math.floor((64 * 1024) / 3) + 1); // fewer than 64 Ki characters, more than 64 KiB
    const [problem] = errorsOf(analyzeInput(withParts([textPart(euros)])));
    assert.equal(problem?.code, "message_too_large");
    assert.match(problem?.message ?? "", /at most 65536 bytes of UTF-8, found 65538/);
  });
  it("1000 parts of any kind are accepted; 1001 are too_many_parts", () => {
    const data = { kind: "data", data: {} };
    assert.deepEqual(codesOf(withParts([textPart("x"), ...Array(999).fill(data)])), []);
    assert.deepEqual(codesOf(withParts([textPart("x"), ...Array(1000).fill(data)])), [
      ["/message/parts", "too_many_parts"],
    ]);
  });
  it("in a bare message, and with the envelope in the send params' metadata, too", () => {
    assert.deepEqual(codesOf(message({ [URI]: envelope() }, [textPart("\u0000")])), [["/parts/0/text", "message_nul"]]);
    assert.deepEqual(codesOf({ message: message(undefined, [textPart("\u0000")]), metadata: { [URI]: envelope() } }), [
      ["/message/parts/0/text", "message_nul"],
    ]);
  });
  it("they apply to adapter envelopes only: the echo of such a message is not refused for them", () => {
    assert.equal(analyzeInput({ message: message(undefined, [textPart("a\u0000b")]) }).valid, true);
  });
});

describe('analyzeInput: a top-level "$schema" is allowed in every shape, and ignored', () => {
  const bound = "./schema/adapter-command.schema.json";
  for (const shape of SHAPES) {
    it(`shape ${shape.name}`, () => {
      const analysis = analyzeInput({ $schema: bound, ...(shape.wrap(envelope()) as Json) });
      assert.deepEqual(envelopeOf(analysis), { ...envelope(), timeout_seconds: 300 }, "not part of the envelope");
    });
  }
  it("an echo message with $schema is still an echo", () => {
    const analysis = analyzeInput({ $schema: bound, message: message() });
    assert.equal(analysis.valid && analysis.dispatch, "echo");
  });
  it("a $schema that is not a string: wrong_type at /$schema", () => {
    for (const shape of SHAPES) {
      const analysis = analyzeInput({ ...(shape.wrap(envelope()) as Json), $schema: 5 });
      assert.deepEqual(
        errorsOf(analysis).map((e) => [e.path, e.code]),
        [["/$schema", "wrong_type"]],
      );
    }
  });
  it("inside an envelope that sits in metadata it is an unknown field (only the file's top level binds)", () => {
    const errors = errorsOf(analyzeInput({ message: message({ [URI]: envelope({ $schema: bound }) }) }));
    assert.deepEqual(
      errors.map((e) => [e.path, e.code]),
      [[`/message/metadata/${ESCAPED_URI}/$schema`, "unknown_field"]],
    );
  });
});

describe("analyzeInput: did you mean …?", () => {
  it("a key a few edits from an envelope field names that field", () => {
    const [problem] = errorsOf(analyzeInput(envelope({ timout_seconds: 5 })));
    assert.equal(problem?.code, "unknown_field");
    assert.match(problem?.message ?? "", /did you mean "timeout_seconds"\?$/);
  });
  it("a value a few edits from an allowed one names it", () => {
    const [problem] = errorsOf(analyzeInput(envelope({ mode: "plna" })));
    assert.equal(problem?.code, "invalid_value");
    assert.equal(problem?.message, 'expected "plan" or "assess", found "plna"; did you mean "plan"?');
  });
  it("case alone, and a key cut short, are near misses too", () => {
    assert.match(errorsOf(analyzeInput(envelope({ mode: "Assess" })))[0]?.message ?? "", /did you mean "assess"/);
    assert.match(errorsOf(analyzeInput(envelope({ timeout: 5 })))[0]?.message ?? "", /did you mean "timeout_seconds"/);
    assert.match(
      errorsOf(analyzeInput(envelope({ input_mode: "textline" })))[0]?.message ?? "",
      /did you mean "text-line"/,
    );
  });
  it("nothing close: no guess", () => {
    assert.doesNotMatch(errorsOf(analyzeInput(envelope({ shell: true })))[0]?.message ?? "", /did you mean/);
    assert.doesNotMatch(errorsOf(analyzeInput(envelope({ mode: "execute" })))[0]?.message ?? "", /did you mean/);
  });
});
