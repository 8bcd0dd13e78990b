// CONTRACT section 2, by property: 10 000 generated and mutated inputs to analyzeInput. It never throws; every
// rejection names at least one problem, and every problem's `path` is a JSON Pointer into the document; a valid
// envelope with any single rule broken is rejected, with a problem at the field that broke it.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { analyzeInput, analyzeText } from "../../src/a2a/input-file.js";
import type { Analysis } from "../../src/core/envelope/envelope.js";
import { parsePointer, pointer } from "../../src/core/envelope/json-pointer.js";
import type { Problem } from "../../src/core/envelope/problems.js";
import { ADAPTER_URI, REQUEST_ROOTS, RUNNER_PATH } from "../../src/core/uris.js";

type Json = unknown;
type Obj = Record<string, unknown>;
type Segment = string | number;

const RUNS = {
  arbitrary: 2000,
  shaped: 2000,
  mutated: 2000,
  broken: 4000,
} as const;
/** The failing assertion's message goes into fast-check's report (node:test shows no `cause`). */
const OPTIONS = { includeErrorInReport: true } as const;

// --- JSON Pointers (RFC 6901) -------------------------------------------------------------------------------------

/** Walks `tokens` into `doc`: own properties and in-range array indices only. */
function resolve(doc: Json, tokens: readonly string[]): { found: true; value: Json } | { found: false } {
  let current: Json = doc;
  for (const token of tokens) {
    if (Array.isArray(current)) {
      if (!/^(?:0|[1-9]\d*)$/.test(token) || Number(token) >= current.length) return { found: false };
      current = current[Number(token)];
    } else if (typeof current === "object" && current !== null && Object.hasOwn(current, token)) {
      current = (current as Obj)[token];
    } else {
      return { found: false };
    }
  }
  return { found: true, value: current };
}

/** Why `problem.path` does not point into `doc`, or undefined when it does. */
function pointerFault(doc: Json, problem: Problem): string | undefined {
  const tokens = parsePointer(problem.path);
  if (!tokens) return `${JSON.stringify(problem.path)} is not a JSON Pointer`;
  if (resolve(doc, tokens).found) return undefined;
  if (problem.code !== "missing_field") return `${JSON.stringify(problem.path)} resolves to nothing`;
  // A missing field: the pointer names where it belongs, so its parent must resolve (to a container without it).
  const parent = resolve(doc, tokens.slice(0, -1));
  if (!parent.found) return `the parent of the missing field ${JSON.stringify(problem.path)} resolves to nothing`;
  if (typeof parent.value !== "object" || parent.value === null)
    return `the parent of the missing field ${JSON.stringify(problem.path)} is not an object or an array`;
  return undefined;
}

/** The checks every analysis must pass, whatever the input. */
function checkAnalysis(doc: Json): Analysis {
  let analysis: Analysis;
  try {
    analysis = analyzeInput(doc);
  } catch (error) {
    assert.fail(`analyzeInput threw ${(error as Error)?.stack ?? error} for ${safeJson(doc)}`);
  }
  if (analysis.valid) return analysis;
  assert.ok(analysis.errors.length >= 1, `a rejection without problems for ${safeJson(doc)}`);
  for (const problem of analysis.errors) {
    assert.equal(typeof problem.code, "string");
    assert.ok(problem.code.length > 0 && problem.message.length > 0, `an empty code or message: ${safeJson(problem)}`);
    const fault = pointerFault(doc, problem);
    assert.equal(fault, undefined, `${fault} (problem ${safeJson(problem)}) in ${safeJson(doc)}`);
  }
  return analysis;
}

function safeJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
}

// --- Valid inputs in the three shapes -----------------------------------------------------------------------------

const CLOSED_KEYS = ["adapter", "mode", "command", "working_dir", "timeout_seconds", "input_mode"];
/** Keys that would turn a bare envelope into another shape (CONTRACT section 2's detection). */
const SHAPE_KEYS = ["message", "parts", "role", "kind"];

const segmentChar = fc.constantFrom(..."abcxyzXYZ0129-_.~ é€𝄞+=@".split(/(?:)/u));
const segment = fc.string({ unit: segmentChar, minLength: 1, maxLength: 10 }).filter((s) => s !== "." && s !== "..");
const validRequest = fc
  .tuple(fc.constantFrom(...REQUEST_ROOTS), fc.array(segment, { minLength: 1, maxLength: 4 }))
  .map(([root, segments]) => root + segments.join("/"));
const noNul = fc.string({ unit: "binary", maxLength: 24 }).filter((s) => !s.includes("\u0000"));
const workingDir = fc.oneof(
  fc.constantFrom("", "/workspace", "/workspace/sub", "ok", "./ok", "a/b"),
  noNul,
  fc.constant(undefined),
);

/** A type alias, not an interface: it has an implicit index signature, so it is an `Obj` too. */
type Base = {
  adapter: string;
  mode: string;
  command: string[];
  working_dir?: string;
  timeout_seconds?: number;
  input_mode?: string;
};

const validEnvelope: fc.Arbitrary<Base> = fc
  .record({
    mode: fc.constantFrom("plan", "assess"),
    request: validRequest,
    working_dir: workingDir,
    timeout_seconds: fc.option(fc.integer({ min: 1, max: 900 }), { nil: undefined }),
    input_mode: fc.option(fc.constant("text-line"), { nil: undefined }),
  })
  .map(({ mode, request, ...optional }) => {
    const envelope: Base = {
      adapter: "sandbox-agent-runner",
      mode,
      command: ["node", RUNNER_PATH, "--request", request],
    };
    for (const [key, value] of Object.entries(optional)) if (value !== undefined) (envelope as Obj)[key] = value;
    return envelope;
  });

interface Shape {
  name: string;
  wrap(envelope: unknown): Obj;
  /** Where the envelope sits in the document. */
  base: Segment[];
}

const parts = [{ kind: "text", text: "hello" }];
const SHAPES: Shape[] = [
  {
    name: "A (send params, envelope in the message)",
    wrap: (envelope) => ({
      message: { kind: "message", messageId: "m-1", role: "user", parts, metadata: { [ADAPTER_URI]: envelope } },
      configuration: { blocking: false },
    }),
    base: ["message", "metadata", ADAPTER_URI],
  },
  {
    name: "A (send params, envelope in the params' metadata)",
    wrap: (envelope) => ({ message: { role: "user", parts }, metadata: { [ADAPTER_URI]: envelope, other: 1 } }),
    base: ["metadata", ADAPTER_URI],
  },
  {
    name: "B (bare message)",
    wrap: (envelope) => ({ role: "user", parts, metadata: { [ADAPTER_URI]: envelope } }),
    base: ["metadata", ADAPTER_URI],
  },
  { name: "C (bare envelope)", wrap: (envelope) => envelope as Obj, base: [] },
];
const shape = fc.constantFrom(...SHAPES);

/** A shallow copy with `key` set as an own property (so `__proto__` is a key, not the prototype). */
function withKey(object: Obj, key: string, value: unknown): Obj {
  const copy: Obj = { ...object };
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

function withoutKey(object: Obj, key: string): Obj {
  const copy: Obj = { ...object };
  delete copy[key];
  return copy;
}

// --- One broken rule ----------------------------------------------------------------------------------------------

const DELETE = Symbol("delete");

interface Broken {
  rule: string;
  envelope: Obj;
  /** Pointer tokens relative to the envelope where a problem must be reported. */
  at: Segment[];
  /** The problem at `at` has one of these codes (empty: any code). */
  codes: string[];
}

type Breaker = fc.Arbitrary<(envelope: Base) => Broken>;

/** A field set to a generated value (or removed); a problem must be at the field. */
function fieldBreaker(rule: string, field: string, values: fc.Arbitrary<unknown>, codes: string[]): Breaker {
  return values.map((value) => (envelope: Base) => ({
    rule,
    envelope: value === DELETE ? withoutKey(envelope as Obj, field) : withKey(envelope as Obj, field, value),
    at: [field],
    codes: value === DELETE ? ["missing_field"] : codes,
  }));
}

const anyJson = fc.jsonValue({ maxDepth: 2 });
const notA = (kept: unknown[]) => anyJson.filter((value) => !kept.includes(value as never));

/** The request (command[3]) replaced by what `make` builds from a valid one. */
function requestBreaker<T>(
  rule: string,
  extra: fc.Arbitrary<T>,
  make: (request: string, extra: T) => string,
  codes: string[],
): Breaker {
  return fc.tuple(validRequest, extra).map(([request, more]) => (envelope: Base) => ({
    rule,
    envelope: withKey(envelope as Obj, "command", [...envelope.command.slice(0, 3), make(request, more)]),
    at: ["command", 3],
    codes,
  }));
}

/** A valid request without its allowed folder. */
const tailOf = (request: string) => {
  const root = REQUEST_ROOTS.find((folder) => request.startsWith(folder)) ?? "";
  return request.slice(root.length);
};

/** Inserts `piece` into `text` at `at` (modulo its length + 1). */
const insertAt = (text: string, piece: string, at: number) => {
  const chars = [...text];
  const index = at % (chars.length + 1);
  return [...chars.slice(0, index), piece, ...chars.slice(index)].join("");
};

const controlChar = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }))
  .map((code) => String.fromCharCode(code));

/** A key outside the closed set (and not one that would change the file's shape), `__proto__` included. */
const unknownKey = fc
  .oneof(
    fc.string({ unit: "binary", maxLength: 12 }),
    fc.constantFrom("__proto__", "constructor", "toString", "a/b", "~", "~1", "", "Adapter", "timeout"),
  )
  .filter((key) => !CLOSED_KEYS.includes(key) && !SHAPE_KEYS.includes(key));

const unknownKeyBreaker: Breaker = fc.tuple(unknownKey, anyJson).map(([key, value]) => (envelope: Base) => ({
  rule: "unknown key",
  envelope: withKey(envelope as Obj, key, value),
  at: [key],
  codes: ["unknown_field"],
}));

const BREAKERS: Breaker[] = [
  fieldBreaker(
    "adapter",
    "adapter",
    fc.oneof(
      fc.constantFrom("Sandbox-agent-runner", "sandbox-agent-runner ", "sandbox_agent_runner", "", "runner", DELETE),
      notA(["sandbox-agent-runner"]),
    ),
    ["invalid_value"],
  ),
  fieldBreaker(
    "mode",
    "mode",
    fc.oneof(fc.constantFrom("Plan", "PLAN", "plan ", "apply", "execute", "", DELETE), notA(["plan", "assess"])),
    ["invalid_value"],
  ),
  // A command item: one of the fixed three replaced, REQUEST not a string, the wrong length, or not an array.
  fc
    .tuple(
      fc.integer({ min: 0, max: 2 }),
      fc.oneof(
        fc.constantFrom("nodejs", "/usr/bin/node", "node ", "sh", "-c", `./${RUNNER_PATH}`, "--Request", "-r", ""),
        notA([]),
      ),
    )
    .filter(([index, value]) => value !== ["node", RUNNER_PATH, "--request"][index])
    .map(([index, value]) => (envelope: Base) => {
      const command: unknown[] = [...envelope.command];
      command[index] = value;
      return {
        rule: "command item",
        envelope: withKey(envelope as Obj, "command", command),
        at: ["command", index],
        codes: ["invalid_value"],
      };
    }),
  fc
    .oneof(
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.object({ maxDepth: 1 }),
    )
    .map((value) => (envelope: Base) => ({
      rule: "command item (REQUEST not a string)",
      envelope: withKey(envelope as Obj, "command", [...envelope.command.slice(0, 3), value]),
      at: ["command", 3],
      codes: ["wrong_type"],
    })),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { minLength: 1, maxLength: 3 }).map((more) => (envelope: Base) => ({
    rule: "command item (too many)",
    envelope: withKey(envelope as Obj, "command", [...envelope.command, ...more]),
    at: ["command", 4],
    codes: ["command_length"],
  })),
  fc.integer({ min: 0, max: 3 }).map((length) => (envelope: Base) => ({
    rule: "command item (too few)",
    envelope: withKey(envelope as Obj, "command", envelope.command.slice(0, length)),
    at: ["command", length],
    codes: ["missing_field"],
  })),
  fieldBreaker(
    "command (not an array)",
    "command",
    fc.oneof(
      fc.constantFrom(`node ${RUNNER_PATH} --request .aiwg/ops/runs/x.json`, DELETE),
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.object({ maxDepth: 1 })),
    ),
    ["wrong_type"],
  ),
  // REQUEST outside the two folders: near-miss prefixes, other folders, and the folders themselves.
  requestBreaker(
    "request prefix",
    fc.tuple(
      fc.constantFrom(
        ".aiwg/ops/run/",
        ".aiwg/ops/runsx/",
        "aiwg/ops/runs/",
        ".AIWG/ops/runs/",
        ".aiwg/ops/adapters/",
        ".aiwg/ops/adapters/sandbox-agent-runnerX/",
        ".aiwg/ops/adapters/other-runner/",
        ".aiwg/ops/",
        "src/",
        ".git/",
        "",
      ),
      fc.boolean(),
    ),
    (request, [prefix, bare]) => {
      if (bare) return prefix === "" ? ".aiwg/ops/runs" : prefix.replace(/\/$/, "");
      return prefix + tailOf(request);
    },
    ["request_outside_allowed"],
  ),
  requestBreaker("request prefix (the folder itself)", fc.constantFrom(...REQUEST_ROOTS), (_request, root) => root, [
    "request_outside_allowed",
    "request_bad_segment",
  ]),
  // An empty, "." or ".." segment anywhere after the first.
  requestBreaker(
    "request segment",
    fc.tuple(fc.constantFrom("", ".", ".."), fc.nat()),
    (request, [bad, at]) => {
      const segments = request.split("/");
      const index = 1 + (at % segments.length);
      return [...segments.slice(0, index), bad, ...segments.slice(index)].join("/");
    },
    ["request_bad_segment"],
  ),
  requestBreaker(
    "request segment (escape)",
    fc.constantFrom("../../../etc/passwd", "../../runner.mjs", "x/../../..", "./x", "."),
    (request, tail) => `${request.slice(0, request.length - tailOf(request).length)}${tail}`,
    ["request_bad_segment"],
  ),
  requestBreaker("request absolute", fc.constantFrom("/", "//", "/workspace/"), (request, slash) => slash + request, [
    "request_absolute",
  ]),
  requestBreaker(
    "request backslash",
    fc.tuple(fc.nat(), fc.boolean()),
    (request, [at, replace]) => (replace ? request.replace("/", "\\") : insertAt(request, "\\", at)),
    ["request_backslash"],
  ),
  requestBreaker(
    "request control character",
    fc.tuple(controlChar, fc.nat()),
    (request, [char, at]) => insertAt(request, char, at),
    ["request_control_character"],
  ),
  requestBreaker(
    "request length",
    fc.tuple(fc.integer({ min: 1025, max: 4000 }), fc.constantFrom("a", "é", "€", "𝄞")),
    (request, [bytes, filler]) => {
      let text = `${request}/`;
      while (Buffer.byteLength(text) < bytes) text += filler;
      return text;
    },
    ["request_too_long"],
  ),
  requestBreaker("request length (empty)", fc.constant(""), () => "", ["request_empty"]),
  fieldBreaker(
    "timeout type",
    "timeout_seconds",
    fc.oneof(
      fc.constantFrom("300", "5", "", "1e2", true, false, null),
      fc.string(),
      fc.array(fc.integer({ min: 1, max: 900 }), { maxLength: 2 }),
      fc.object({ maxDepth: 1 }),
    ),
    ["wrong_type"],
  ),
  fieldBreaker(
    "timeout range",
    "timeout_seconds",
    fc.oneof(
      fc.integer({ min: -1_000_000, max: 0 }),
      fc.integer({ min: 901, max: 1_000_000_000 }),
      fc.constantFrom(0, -1, 901, 1e12, -1e300, 1e300, Number.MAX_SAFE_INTEGER + 1),
    ),
    ["out_of_range"],
  ),
  fieldBreaker(
    "timeout fraction",
    "timeout_seconds",
    fc.oneof(
      fc.double({ min: -10, max: 1000, noNaN: true, noDefaultInfinity: true }).filter((n) => !Number.isInteger(n)),
      fc.constantFrom(1.5, 0.5, 899.999, 300.0001, 5e-324),
    ),
    ["not_integer"],
  ),
  unknownKeyBreaker,
  fieldBreaker(
    "input_mode value",
    "input_mode",
    fc.oneof(fc.constantFrom("text", "Text-Line", "text-line ", "tty", "", null, true), notA(["text-line"])),
    ["invalid_value"],
  ),
  fc.tuple(noNul, fc.nat()).map(([dir, at]) => (envelope: Base) => ({
    rule: "working_dir NUL",
    envelope: withKey(envelope as Obj, "working_dir", insertAt(dir, "\u0000", at)),
    at: ["working_dir"],
    codes: ["working_dir_nul"],
  })),
  fieldBreaker(
    "working_dir type",
    "working_dir",
    fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 })),
    ["wrong_type"],
  ),
];

// --- Random inputs -------------------------------------------------------------------------------------------------

/** JSON built from the words the analyser looks for, so that generated values often come close to the shapes. */
const VOCABULARY = [
  ...CLOSED_KEYS,
  ...SHAPE_KEYS,
  "metadata",
  "text",
  "configuration",
  "messageId",
  "contextId",
  "taskId",
  "extensions",
  "blocking",
  "historyLength",
  "data",
  "file",
  ADAPTER_URI,
];
const vocabularyValue = fc.oneof(
  fc.constantFrom(
    "user",
    "agent",
    "message",
    "text",
    "data",
    "file",
    "sandbox-agent-runner",
    "plan",
    "assess",
    "node",
    RUNNER_PATH,
    "--request",
    ".aiwg/ops/runs/req.json",
    "text-line",
    300,
    0,
    1.5,
    null,
    true,
  ),
  fc.jsonValue({ maxDepth: 0 }),
);
const { shaped } = fc.letrec((tie) => ({
  shaped: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    vocabularyValue,
    fc.dictionary(fc.oneof(fc.constantFrom(...VOCABULARY), fc.string({ maxLength: 4 })), tie("shaped"), {
      maxKeys: 5,
    }),
    fc.array(tie("shaped"), { maxLength: 4 }),
  ),
}));

/** Every path in a document, the root included. */
function pathsOf(doc: Json, at: string[] = [], out: string[][] = []): string[][] {
  out.push(at);
  if (Array.isArray(doc)) for (const [index, item] of doc.entries()) pathsOf(item, [...at, String(index)], out);
  else if (typeof doc === "object" && doc !== null)
    for (const key of Object.keys(doc)) pathsOf((doc as Obj)[key], [...at, key], out);
  return out;
}

interface Mutation {
  pick: number;
  op: "delete" | "replace" | "add" | "wrap" | "stringify";
  key: string;
  value: Json;
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  pick: fc.nat(),
  op: fc.constantFrom("delete", "replace", "add", "wrap", "stringify"),
  key: fc.oneof(fc.constantFrom(...VOCABULARY), fc.string({ maxLength: 6 })),
  value: fc.oneof(vocabularyValue, fc.jsonValue({ maxDepth: 2 })),
});

/** Applies a mutation to a deep copy of `doc`. */
function mutate(doc: Json, m: Mutation): Json {
  const copy = JSON.parse(JSON.stringify(doc)) as Json;
  const paths = pathsOf(copy);
  const path = paths[m.pick % paths.length] as string[];
  const target = resolve(copy, path);
  if (!target.found) return copy;
  const replace = (value: Json): Json => {
    if (path.length === 0) return value;
    const parent = resolve(copy, path.slice(0, -1));
    const last = path.at(-1) as string;
    if (parent.found && Array.isArray(parent.value)) parent.value[Number(last)] = value;
    else if (parent.found)
      Object.defineProperty(parent.value, last, { value, enumerable: true, writable: true, configurable: true });
    return copy;
  };
  switch (m.op) {
    case "delete": {
      if (path.length === 0) return {};
      const parent = resolve(copy, path.slice(0, -1));
      const last = path.at(-1) as string;
      if (parent.found && Array.isArray(parent.value)) parent.value.splice(Number(last), 1);
      else if (parent.found) delete (parent.value as Obj)[last];
      return copy;
    }
    case "replace":
      return replace(m.value);
    case "add": {
      const value = target.value;
      if (Array.isArray(value)) value.push(m.value);
      else if (typeof value === "object" && value !== null)
        Object.defineProperty(value, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
      else return replace({ [m.key]: m.value });
      return copy;
    }
    case "wrap":
      return replace([target.value]);
    case "stringify":
      return replace(JSON.stringify(target.value) ?? "");
  }
}

/** A problem for `broken` is among `errors`: at its field, with one of its codes. */
function assertReported(errors: Problem[], where: Shape, broken: Broken): void {
  const at = pointer(...where.base, ...broken.at);
  const here = errors.filter((problem) => problem.path === at);
  assert.ok(
    here.some((problem) => broken.codes.length === 0 || broken.codes.includes(problem.code)),
    `rule "${broken.rule}" in ${where.name}: expected ${broken.codes.join(" or ") || "a problem"} at ${at}, got ${safeJson(errors)} for ${safeJson(broken.envelope)}`,
  );
}

/** Applies breakers one after the other, each to a field no earlier one touched. */
function breakAll(envelope: Base, breakers: Array<(envelope: Base) => Broken>): Broken[] {
  const done: Broken[] = [];
  let current = envelope as Obj;
  for (const breaker of breakers) {
    // Each breaker sees the valid envelope, so it can build on fields that an earlier one broke.
    const broken = breaker(envelope);
    const field = broken.at[0];
    if (done.some((earlier) => earlier.at[0] === field)) continue;
    // Only what this breaker changed is taken over (the others' fields stay as they were broken).
    const next: Obj = { ...current };
    if (Object.hasOwn(broken.envelope, field as string))
      Object.defineProperty(next, field as string, {
        value: broken.envelope[field as string],
        enumerable: true,
        writable: true,
        configurable: true,
      });
    else delete next[field as string];
    current = next;
    done.push({ ...broken, envelope: current });
  }
  return done;
}

const validDocument = fc.tuple(validEnvelope, shape).map(([envelope, where]) => where.wrap(envelope));

// --- The properties ------------------------------------------------------------------------------------------------

describe("analyzeInput, by property (10 000 inputs)", () => {
  it(`never throws on ${RUNS.arbitrary} arbitrary JSON values; every problem points into the value`, () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (doc) => {
        checkAnalysis(doc);
      }),
      { ...OPTIONS, numRuns: RUNS.arbitrary },
    );
  });

  it(`never throws on ${RUNS.shaped} values built from the shapes' own words; every problem points into the value`, () => {
    fc.assert(
      fc.property(shaped, (doc) => {
        checkAnalysis(doc);
      }),
      { ...OPTIONS, numRuns: RUNS.shaped },
    );
  });

  it(`never throws on ${RUNS.mutated} valid files in the three shapes with random mutations; problems point into them`, () => {
    fc.assert(
      fc.property(validDocument, fc.array(mutation, { minLength: 1, maxLength: 3 }), (doc, mutations) => {
        checkAnalysis(mutations.reduce<Json>((current, m) => mutate(current, m), doc));
      }),
      { ...OPTIONS, numRuns: RUNS.mutated },
    );
  });

  it("the generated valid envelopes are accepted in every shape (the base of the broken-rule property)", () => {
    fc.assert(
      fc.property(validEnvelope, shape, (envelope, where) => {
        const analysis = checkAnalysis(where.wrap(envelope));
        assert.equal(analysis.valid, true, `${where.name}: ${safeJson(analysis)} for ${safeJson(envelope)}`);
        assert.equal(analysis.dispatch, "adapter-command");
      }),
      { ...OPTIONS, numRuns: 300 },
    );
  });

  it(`a valid envelope with any single rule broken is rejected, with the problem at that field (${RUNS.broken} runs)`, () => {
    const seen = new Map<string, number>();
    fc.assert(
      fc.property(validEnvelope, shape, fc.oneof(...BREAKERS), (envelope, where, breaker) => {
        const broken = breaker(envelope);
        seen.set(broken.rule, (seen.get(broken.rule) ?? 0) + 1);
        const doc = where.wrap(broken.envelope);
        const analysis = checkAnalysis(doc);
        assert.equal(
          analysis.valid,
          false,
          `rule "${broken.rule}" broken in ${where.name} but accepted: ${safeJson(broken.envelope)}`,
        );
        if (analysis.valid) return;
        assert.equal(analysis.dispatch, "adapter-command", "an invalid envelope is never downgraded to echo");
        assertReported(analysis.errors, where, broken);
      }),
      { ...OPTIONS, numRuns: RUNS.broken },
    );
    // Every rule was tried (23 breakers over 4000 runs: each is picked about 170 times).
    assert.equal(seen.size, BREAKERS.length, `rules tried: ${[...seen.keys()].join(", ")}`);
  });

  it("several rules broken on different fields: every one is reported, not just the first (500 runs)", () => {
    // One unknown key at most here: several unknown keys are the next test's.
    const notUnknown = BREAKERS.filter((breaker) => breaker !== unknownKeyBreaker);
    fc.assert(
      fc.property(
        validEnvelope,
        shape,
        fc.array(fc.oneof(...notUnknown), { minLength: 2, maxLength: 5 }),
        (envelope, where, breakers) => {
          const all = breakAll(envelope, breakers);
          const last = all.at(-1) as Broken;
          const analysis = checkAnalysis(where.wrap(last.envelope));
          assert.equal(analysis.valid, false);
          if (analysis.valid) return;
          for (const broken of all) assertReported(analysis.errors, where, { ...broken, envelope: last.envelope });
        },
      ),
      { ...OPTIONS, numRuns: 500 },
    );
  });

  it("several unknown keys: every one is reported (CONTRACT section 2: every problem, not just the first)", () => {
    fc.assert(
      fc.property(
        validEnvelope,
        shape,
        fc.uniqueArray(unknownKey, { minLength: 2, maxLength: 4 }),
        (envelope, where, keys) => {
          const broken = keys.reduce((current, key) => withKey(current, key, true), envelope as unknown as Obj);
          const analysis = checkAnalysis(where.wrap(broken));
          assert.equal(analysis.valid, false);
          if (analysis.valid) return;
          for (const key of keys)
            assertReported(analysis.errors, where, {
              rule: "unknown key",
              envelope: broken,
              at: [key],
              codes: ["unknown_field"],
            });
        },
      ),
      { ...OPTIONS, numRuns: 200 },
    );
  });
});

// --- Near-miss extension keys and repeated keys (CONTRACT section 2) ----------------------------------------------

/** One edit anywhere in `text`: a character inserted, deleted or replaced. */
const oneEdit = fc
  .tuple(fc.constantFrom("insert", "delete", "replace"), fc.nat(), fc.constantFrom(..."a-/.:_0Xé ".split("")))
  .map(([op, at, char]) => (text: string) => {
    const chars = [...text];
    const index = at % (chars.length + (op === "insert" ? 1 : 0));
    if (op === "insert") chars.splice(index, 0, char);
    else if (op === "delete") chars.splice(index, 1);
    else chars[index] = char;
    return chars.join("");
  });

/** Changes that normalisation undoes: the scheme, the case, trailing slashes, blanks around the key. */
const cosmetic = fc.oneof(
  fc
    .constantFrom("http://", "HTTPS://", "ftp://", "", "hTtPs://")
    .map((scheme) => (uri: string) => scheme + uri.replace(/^https:\/\//, "")),
  fc.array(fc.nat(), { minLength: 1, maxLength: 5 }).map((positions) => (uri: string) => {
    const chars = [...uri];
    for (const at of positions) chars[at % chars.length] = (chars[at % chars.length] as string).toUpperCase();
    return chars.join("");
  }),
  fc.integer({ min: 1, max: 3 }).map((n) => (uri: string) => uri + "/".repeat(n)),
  fc.constantFrom(" ", "\t", "  ").map((blank) => (uri: string) => `${blank}${uri}${blank}`),
);

const nearMissKey = fc
  .oneof(
    // A change a normaliser undoes, then perhaps one edit (a typo).
    fc.tuple(cosmetic, fc.option(oneEdit, { nil: undefined })).map(([change, edit]) => {
      const changed = change(ADAPTER_URI);
      return edit ? edit(changed) : changed;
    }),
    oneEdit.map((edit) => edit(ADAPTER_URI)),
    // Another version.
    fc
      .oneof(
        fc
          .integer({ min: 0, max: 99 })
          .filter((n) => n !== 1)
          .map((n) => `v${n}`),
        fc.constantFrom("v1.1", "V2", "beta", ""),
      )
      .map((version) => ADAPTER_URI.replace(/v1$/, version)),
    // Anything ending in adapter-command/v1, or holding extensions/adapter-command.
    fc.string({ maxLength: 20 }).map((prefix) => `${prefix}adapter-command/v1`),
    fc
      .tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }))
      .map(([before, after]) => `${before}extensions/adapter-command${after}`),
  )
  .filter((key) => key !== ADAPTER_URI);

/** Where a metadata key sits in a file, and the document around it. */
const keyPlaces = [
  {
    name: "message.metadata",
    wrap: (meta: Obj) => ({ message: { role: "user", parts, metadata: meta } }),
    base: ["message", "metadata"],
  },
  {
    name: "the send params' metadata",
    wrap: (meta: Obj) => ({ message: { role: "user", parts }, metadata: meta }),
    base: ["metadata"],
  },
  {
    name: "a bare message's metadata",
    wrap: (meta: Obj) => ({ role: "user", parts, metadata: meta }),
    base: ["metadata"],
  },
];

/** JSON text of `doc` with one member added to the object at `target` (so a key may be written twice). */
function withMember(doc: Json, target: string[], key: string, value: Json, indent: boolean): string {
  const nl = indent ? "\n" : "";
  const walk = (node: Json, at: string[]): string => {
    if (Array.isArray(node)) return `[${node.map((item, i) => walk(item, [...at, String(i)])).join(`,${nl}`)}]`;
    if (typeof node !== "object" || node === null) return JSON.stringify(node);
    const members = Object.entries(node).map(([k, v]) => `${JSON.stringify(k)}: ${walk(v, [...at, k])}`);
    if (at.length === target.length && at.every((token, i) => token === target[i]))
      members.push(`${JSON.stringify(key)}: ${JSON.stringify(value)}`);
    return `{${nl}${members.join(`,${nl}`)}${nl}}`;
  };
  return walk(doc, []);
}

/** The paths of every object in a document. */
const objectPaths = (doc: Json) =>
  pathsOf(doc).filter((path) => {
    const found = resolve(doc, path);
    return found.found && typeof found.value === "object" && found.value !== null && !Array.isArray(found.value);
  });

describe("near-miss and repeated keys, by property", () => {
  it("a generated near-miss of the extension key is always envelope_key_mismatch, never an echo (2000 runs)", () => {
    fc.assert(
      fc.property(
        nearMissKey,
        fc.constantFrom(...keyPlaces),
        fc.oneof(validEnvelope, anyJson),
        fc.boolean(),
        (key, place, envelope, alsoExact) => {
          const metadata = withKey(alsoExact ? { [ADAPTER_URI]: envelope } : {}, key, envelope);
          const analysis = checkAnalysis(place.wrap(metadata));
          assert.equal(analysis.valid, false, `${JSON.stringify(key)} in ${place.name} was accepted`);
          if (analysis.valid) return;
          assert.equal(analysis.dispatch, "adapter-command");
          const at = pointer(...place.base, key);
          assert.ok(
            analysis.errors.some((p) => p.path === at && p.code === "envelope_key_mismatch"),
            `expected envelope_key_mismatch at ${at}, got ${safeJson(analysis.errors)}`,
          );
        },
      ),
      { ...OPTIONS, numRuns: 2000 },
    );
  });

  it("a key written twice on any object of a file is always duplicate_key, at its line and column (1000 runs)", () => {
    fc.assert(
      fc.property(
        validDocument,
        fc.nat(),
        fc.nat(),
        fc.option(fc.string({ maxLength: 8 }), { nil: undefined }),
        fc.jsonValue({ maxDepth: 1 }),
        fc.boolean(),
        (doc, pickObject, pickKey, newKey, value, indent) => {
          const objects = objectPaths(doc);
          const target = objects[pickObject % objects.length] as string[];
          const existing = Object.keys((resolve(doc, target) as { value: Obj }).value);
          // An existing key is repeated; an empty object gets a new key twice.
          let text: string;
          let key: string;
          if (existing.length > 0) {
            key = existing[pickKey % existing.length] as string;
            text = withMember(doc, target, key, value, indent);
          } else {
            key = newKey ?? "k";
            const once = withMember(doc, target, key, value, indent);
            text = withMember(JSON.parse(once), target, key, value, indent);
          }
          const { analysis } = analyzeText(text);
          assert.equal(analysis.valid, false, `accepted: ${text}`);
          if (analysis.valid) return;
          const at = pointer(...target, key);
          const duplicate = analysis.errors.find((p) => p.code === "duplicate_key" && p.path === at);
          assert.ok(duplicate, `expected duplicate_key at ${at}, got ${safeJson(analysis.errors)} for ${text}`);
          // The line and column point at the key's second writing.
          const line = text.split("\n")[(duplicate.line as number) - 1] ?? "";
          const rest = [...line].slice((duplicate.column as number) - 1).join("");
          assert.ok(
            rest.startsWith(JSON.stringify(key)),
            `${duplicate.line}:${duplicate.column} is ${JSON.stringify(rest)}`,
          );
        },
      ),
      { ...OPTIONS, numRuns: 1000 },
    );
  });
});
