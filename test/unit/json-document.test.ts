// CONTRACT section 2: repeated keys are duplicate_key with line and column; every problem gets the line:column
// of what it points at, and a person reads its path as `envelope.timeout_seconds`.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { analyzeText } from "../../src/a2a/input-file.js";
import { type DuplicateKey, JsonTree, repeatsKeys } from "../../src/core/envelope/json-document.js";
import { readablePath } from "../../src/core/envelope/json-pointer.js";
import { ADAPTER_URI } from "../../src/core/uris.js";

const RUNNER = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
const ENVELOPE = `{"adapter": "sandbox-agent-runner", "mode": "plan", "command": ["node", "${RUNNER}", "--request", ".aiwg/ops/runs/a.json"]}`;

/** The repeated keys of JSON text as the input reader finds them (src/core/envelope/input-text.ts); none when not JSON. */
function findDuplicateKeys(text: string): DuplicateKey[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  return repeatsKeys(text, value) ? (JsonTree.of(text, value)?.duplicateKeys() ?? []) : [];
}

describe("the repeated keys of a JsonTree", () => {
  it("finds a key repeated on any object, at its second occurrence, with where the first was", () => {
    const text = '{\n  "a": 1,\n  "b": {"c": [ {"d": 1, "d": 2} ]},\n  "a": 3\n}';
    assert.deepEqual(findDuplicateKeys(text), [
      { path: "/b/c/0/d", key: "d", line: 3, column: 25, first: { line: 3, column: 17 } },
      { path: "/a", key: "a", line: 4, column: 3, first: { line: 2, column: 3 } },
    ]);
  });
  it("a key written with escapes is the same key", () => {
    assert.deepEqual(
      findDuplicateKeys('{"ab": 1, "a\\u0062": 2}').map((d) => d.path),
      ["/ab"],
    );
  });
  it("pointers escape / and ~ in keys", () => {
    assert.deepEqual(
      findDuplicateKeys('{"x": {"a/b~": 1, "a/b~": 2}}').map((d) => d.path),
      ["/x/a~1b~0"],
    );
  });
  it("equal keys on different objects are not repeats", () => {
    assert.deepEqual(findDuplicateKeys('[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]'), []);
  });
  it("columns count characters: an emoji before the key is one column", () => {
    const [duplicate] = findDuplicateKeys('{"😀": 1, "😀": 2}');
    assert.deepEqual([duplicate?.line, duplicate?.column], [1, 10]);
  });
  it("text that is not JSON, or nests deeper than the analysis allows, has none to report", () => {
    assert.deepEqual(findDuplicateKeys('{"a": 1, "a": '), []);
    assert.deepEqual(findDuplicateKeys(`${"[".repeat(5000)}{"a":1,"a":2}${"]".repeat(5000)}`), []);
  });
});

describe("repeatsKeys (the cheap check before the tree is built)", () => {
  const cases: Array<[string, boolean]> = [
    ['{"a": 1, "b": {"c": [1, {"d": 2}]}}', false],
    ['{"a": 1, "a": 2}', true],
    ['{"a:b": "c:d", "e": "\\":"}', false],
    ['{"q\\"": 1, "q\\"": 2}', true],
    ['{"__proto__": 1, "x": {"__proto__": {}}}', false],
    ['{"__proto__": 1, "__proto__": 2}', true],
    ["[1, 2, {}]", false],
  ];
  for (const [text, expected] of cases) {
    it(`${text} → ${expected}`, () => assert.equal(repeatsKeys(text, JSON.parse(text)), expected));
  }
});

describe("JsonTree.locate", () => {
  const text = `{\n  "message": {\n    "parts": [\n      {"kind": "text", "text": "hi"}\n    ]\n  }\n}`;
  const tree = JsonTree.of(text, JSON.parse(text)) as JsonTree;
  it("a member: where its key is written", () => {
    assert.deepEqual(tree.locate("/message/parts"), { line: 3, column: 5 });
    assert.deepEqual(tree.locate("/message/parts/0/text"), { line: 4, column: 24 });
  });
  it("an array item: where the item starts", () => {
    assert.deepEqual(tree.locate("/message/parts/0"), { line: 4, column: 7 });
  });
  it("something missing: its nearest present ancestor", () => {
    assert.deepEqual(tree.locate("/message/parts/0/metadata"), { line: 4, column: 7 });
    assert.deepEqual(tree.locate("/message/role"), { line: 2, column: 3 });
  });
  it("the root has no position of its own", () => {
    assert.equal(tree.locate(""), undefined);
  });
  it("a repeated key: the last one, which JSON.parse kept", () => {
    const repeated = '{"a": 1,\n "a": 2}';
    assert.deepEqual(JsonTree.of(repeated, JSON.parse(repeated))?.locate("/a"), { line: 2, column: 2 });
  });
});

describe("analyzeText", () => {
  it("a repeated key makes a valid file invalid: duplicate_key with line and column, dispatch kept", () => {
    const text = ENVELOPE.replace('"mode": "plan"', '"mode": "assess",\n  "mode": "plan"');
    const { analysis } = analyzeText(text);
    assert.equal(analysis.valid, false);
    assert.equal(analysis.dispatch, "adapter-command");
    assert.deepEqual(analysis.valid ? [] : analysis.errors.map((e) => [e.path, e.code, e.line, e.column]), [
      ["/mode", "duplicate_key", 2, 3],
    ]);
  });
  it("an envelope hidden behind a second extension key is refused", () => {
    const text = `{"message": {"role": "user", "parts": [{"kind": "text", "text": "x"}], "metadata": {"${ADAPTER_URI}": ${ENVELOPE}, "${ADAPTER_URI}": ${ENVELOPE.replace("plan", "assess")}}}}`;
    const { analysis } = analyzeText(text);
    assert.deepEqual(analysis.valid ? [] : analysis.errors.map((e) => e.code), ["duplicate_key"]);
  });
  it("every problem of the analysis gets the line and column of what it points at", () => {
    const text = ENVELOPE.replace('"mode": "plan"', '\n"mode": "plna"');
    const { analysis } = analyzeText(text);
    assert.deepEqual(analysis.valid ? [] : analysis.errors.map((e) => [e.code, e.line, e.column]), [
      ["invalid_value", 2, 1],
    ]);
  });
  it("a syntax error keeps its own line and column; a byte order mark is skipped", () => {
    const { analysis } = analyzeText('\ufeff{\n"a": 1 "b"}');
    assert.deepEqual(analysis.valid ? [] : analysis.errors.map((e) => [e.code, e.line, e.column]), [
      ["json_syntax", 2, 8],
    ]);
    assert.equal(analyzeText(`\ufeff${ENVELOPE}`).analysis.valid, true);
  });
  it("locate() places problems found later (in the workspace) too", () => {
    const { locate } = analyzeText(`{\n"working_dir": "/etc", ${ENVELOPE.slice(1)}`);
    assert.deepEqual(locate({ path: "/working_dir", code: "x", message: "m" }), {
      path: "/working_dir",
      code: "x",
      message: "m",
      line: 2,
      column: 1,
    });
  });
});

describe("readablePath", () => {
  const URI_TOKEN = ADAPTER_URI.replaceAll("/", "~1");
  const cases: Array<[string, string]> = [
    [`/message/metadata/${URI_TOKEN}/timeout_seconds`, "envelope.timeout_seconds"],
    [`/metadata/${URI_TOKEN}/command/3`, "envelope.command[3]"],
    [`/message/metadata/${URI_TOKEN}`, "envelope"],
    ["/message/parts/0/text", "message.parts[0].text"],
    ["/timeout_seconds", "timeout_seconds"],
    ["/message/metadata/http:~1~1example.com~1x", 'message.metadata["http://example.com/x"]'],
    ["/$schema", "$schema"],
    ["/a b/~0", '["a b"]["~"]'],
  ];
  for (const [pointer, expected] of cases) {
    it(`${pointer} → ${expected}`, () => {
      assert.equal(readablePath(pointer, ADAPTER_URI), expected);
    });
  }
});
