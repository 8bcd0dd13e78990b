// hitl-prompt/v1 on adapter commands (CONTRACT section 4): the ordered answer checks and the prompt envelope.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import type { HitlReason, ValidationError } from "../../src/core/errors.js";
import {
  type AnswerTarget,
  type AnswerVerdict,
  judgeAnswer,
  MAX_HITL_ANSWER_BYTES,
  newPrompt,
  type OpenPrompt,
  promptEnvelope,
  RESPONSE_SCHEMA,
} from "../../src/core/hitl/hitl.js";

const NOW = Date.parse("2026-05-09T17:00:00.000Z");
const CONTEXT = "ctx-1";
const SCHEMA_COPY = fileURLToPath(new URL("../fixtures/hitl/envelope.schema.json", import.meta.url));
const SCHEMA_SHARED = fileURLToPath(
  new URL("../../../shared/spec/hitl-prompt-v1/envelope.schema.json", import.meta.url),
);
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function openPrompt(overrides: Partial<OpenPrompt> = {}): OpenPrompt {
  return { ...newPrompt("Continue? [y/N]", new Date(NOW + 60_000)), ...overrides };
}

function targetFor(prompt: OpenPrompt | undefined, overrides: Partial<AnswerTarget> = {}): AnswerTarget {
  return { liveBinding: true, contextId: CONTEXT, openPrompt: prompt, ...overrides };
}

function answerFor(prompt: OpenPrompt, payload: unknown = { text: "y" }): Record<string, unknown> {
  return { prompt_id: prompt.id, payload };
}

type Refusal = Extract<AnswerVerdict, { ok: false }>;

function refused(verdict: AnswerVerdict): Refusal {
  assert.equal(verdict.ok, false, `expected a refusal, got ${JSON.stringify(verdict)}`);
  return verdict as Refusal;
}

function assertInvalid(verdict: AnswerVerdict, expected: Array<Pick<ValidationError, "path" | "keyword">>): void {
  const refusal = refused(verdict);
  assert.equal(refusal.code, "hitl_invalid");
  assert.equal(refusal.reason, undefined);
  const errors = refusal.validationErrors ?? [];
  for (const error of errors) {
    assert.deepEqual(Object.keys(error).sort(), ["keyword", "message", "path"]);
    assert.equal(typeof error.path, "string");
    assert.equal(typeof error.keyword, "string");
    assert.ok(typeof error.message === "string" && error.message.length > 0);
  }
  assert.deepEqual(
    errors.map(({ path, keyword }) => ({ path, keyword })),
    expected,
    `validation errors ${JSON.stringify(errors)}`,
  );
}

function assertUnknown(verdict: AnswerVerdict, reason: HitlReason): void {
  const refusal = refused(verdict);
  assert.equal(refusal.code, "hitl_unknown");
  assert.equal(refusal.reason, reason);
}

describe("judgeAnswer: an answer that passes every check", () => {
  it("is accepted, with the prompt it claims and the text to write", () => {
    const prompt = openPrompt();
    const verdict = judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt), NOW);
    assert.deepEqual(verdict, { ok: true, prompt, text: "y" });
  });

  it("accepts an empty text and ordinary non-ASCII text", () => {
    const prompt = openPrompt();
    for (const text of ["", "yes", "oui, d'accord — ça va €", "😀", "a b  c"]) {
      const verdict = judgeAnswer(answerFor(prompt, { text }), CONTEXT, targetFor(prompt), NOW);
      assert.deepEqual(verdict, { ok: true, prompt, text });
    }
  });

  it("accepts a prompt id in upper case (the schema's pattern allows it)", () => {
    const prompt = openPrompt({ id: "F7D4B1C0-9B25-4E8C-A4CE-3D6A51E8A772" });
    assert.equal(judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt), NOW).ok, true);
  });
});

describe("judgeAnswer check 1: the shape of hitl_response_for → hitl_invalid", () => {
  const prompt = openPrompt();
  const target = targetFor(prompt);
  const judge = (response: unknown) => judgeAnswer(response, CONTEXT, target, NOW);

  for (const [name, value] of [
    ["null", null],
    ["a string", "y"],
    ["a number", 42],
    ["an array", [prompt.id, { text: "y" }]],
    ["undefined", undefined],
  ] as const) {
    it(`refuses ${name}`, () => assertInvalid(judge(value), [{ path: "", keyword: "type" }]));
  }

  it("refuses a missing prompt_id", () => {
    assertInvalid(judge({ payload: { text: "y" } }), [{ path: "", keyword: "required" }]);
  });

  it("refuses a missing payload", () => {
    const verdict = judge({ prompt_id: prompt.id });
    assertInvalid(verdict, [{ path: "", keyword: "required" }]);
    assert.equal(refused(verdict).promptId, prompt.id);
  });

  it("refuses an extra key", () => {
    assertInvalid(judge({ ...answerFor(prompt), note: "hi" }), [{ path: "/note", keyword: "additionalProperties" }]);
  });

  for (const [name, id] of [
    ["not a UUID", "prompt-1"],
    ["a UUID without dashes", prompt.id.replaceAll("-", "")],
    ["a UUID of version 0", "f7d4b1c0-9b25-0e8c-a4ce-3d6a51e8a772"],
    ["a UUID with a bad variant", "f7d4b1c0-9b25-4e8c-c4ce-3d6a51e8a772"],
    ["a UUID with a suffix", `${prompt.id}x`],
    ["empty", ""],
  ] as const) {
    it(`refuses a prompt_id that is ${name}`, () => {
      assertInvalid(judge({ prompt_id: id, payload: { text: "y" } }), [{ path: "/prompt_id", keyword: "pattern" }]);
    });
  }

  it("refuses a prompt_id that is not a string", () => {
    assertInvalid(judge({ prompt_id: 7, payload: { text: "y" } }), [{ path: "/prompt_id", keyword: "type" }]);
  });

  for (const [name, payload] of [
    ["a string", "y"],
    ["null", null],
    ["an array", [{ text: "y" }]],
    ["a number", 1],
  ] as const) {
    it(`refuses a payload that is ${name}`, () => {
      assertInvalid(judge({ prompt_id: prompt.id, payload }), [{ path: "/payload", keyword: "type" }]);
    });
  }

  it("reports every shape problem, not just the first", () => {
    assertInvalid(judge({ prompt_id: "nope", payload: "y", extra: 1 }), [
      { path: "/extra", keyword: "additionalProperties" },
      { path: "/prompt_id", keyword: "pattern" },
      { path: "/payload", keyword: "type" },
    ]);
  });
});

describe("judgeAnswer check 2: the task, its binding and the prompt → task_not_found / hitl_unknown", () => {
  it("no target → task_not_found", () => {
    const prompt = openPrompt();
    const verdict = refused(judgeAnswer(answerFor(prompt), CONTEXT, undefined, NOW));
    assert.equal(verdict.code, "task_not_found");
    assert.equal(verdict.promptId, prompt.id);
  });

  it("no live binding → no_live_binding", () => {
    const prompt = openPrompt();
    const verdict = judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt, { liveBinding: false }), NOW);
    assertUnknown(verdict, "no_live_binding");
    assert.equal(refused(verdict).promptId, prompt.id);
  });

  it("another contextId → context_mismatch", () => {
    const prompt = openPrompt();
    assertUnknown(judgeAnswer(answerFor(prompt), "ctx-2", targetFor(prompt), NOW), "context_mismatch");
  });

  it("no contextId: the task's is inferred (A2A 1.0 §3.4.3) and the answer is accepted", () => {
    const prompt = openPrompt();
    const verdict = judgeAnswer(answerFor(prompt), undefined, targetFor(prompt), NOW);
    assert.equal(verdict.ok, true, JSON.stringify(verdict));
  });

  it("no open prompt → unknown_or_answered", () => {
    const prompt = openPrompt();
    assertUnknown(judgeAnswer(answerFor(prompt), CONTEXT, targetFor(undefined), NOW), "unknown_or_answered");
  });

  it("a prompt_id that is not the open prompt's → unknown_or_answered", () => {
    const prompt = openPrompt();
    const other = openPrompt();
    assertUnknown(judgeAnswer(answerFor(other), CONTEXT, targetFor(prompt), NOW), "unknown_or_answered");
  });

  it("the deadline passed → deadline_passed (at the deadline itself too)", () => {
    const prompt = openPrompt({ deadline: new Date(NOW).toISOString() });
    assertUnknown(judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt), NOW), "deadline_passed");
    assertUnknown(judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt), NOW + 5000), "deadline_passed");
    assert.equal(judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt), NOW - 1).ok, true);
  });

  for (const responders of [["specific:release-manager"], ["consensus:2"], ["any", "specific:x"], []]) {
    it(`allowed responders ${JSON.stringify(responders)} → restricted_responder`, () => {
      const prompt = openPrompt({ allowedResponders: responders });
      assertUnknown(judgeAnswer(answerFor(prompt), CONTEXT, targetFor(prompt), NOW), "restricted_responder");
    });
  }
});

describe("judgeAnswer check 3: the payload → hitl_invalid", () => {
  const prompt = openPrompt();
  const judge = (payload: unknown) => judgeAnswer(answerFor(prompt, payload), CONTEXT, targetFor(prompt), NOW);

  it("takes a text of exactly 4096 UTF-8 bytes", () => {
    assert.equal(MAX_HITL_ANSWER_BYTES, 4096);
    const text = `${"€".repeat(1365)}a`;
    assert.equal(Buffer.byteLength(text), 4096);
    assert.deepEqual(judge({ text }), { ok: true, prompt, text });
    assert.equal(judge({ text: "a".repeat(4096) }).ok, true);
    assert.equal(judge({ text: "😀".repeat(1024) }).ok, true);
  });

  it("refuses a text of 4097 UTF-8 bytes", () => {
    const text = `${"€".repeat(1365)}ab`;
    assert.equal(Buffer.byteLength(text), 4097);
    const verdict = judge({ text });
    assertInvalid(verdict, [{ path: "/text", keyword: "maxLength" }]);
    assert.equal(refused(verdict).promptId, prompt.id);
    assertInvalid(judge({ text: "a".repeat(4097) }), [{ path: "/text", keyword: "maxLength" }]);
  });

  it("counts bytes, not characters", () => {
    const text = "€".repeat(2000); // 2000 characters, 6000 bytes
    assertInvalid(judge({ text }), [{ path: "/text", keyword: "maxLength" }]);
  });

  for (const code of [0x00, 0x01, 0x09, 0x0a, 0x0d, 0x1b, 0x1f, 0x7f, 0x80, 0x85, 0x9f]) {
    const name = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    it(`refuses the control character ${name}`, () => {
      const verdict = judge({ text: `ye${String.fromCharCode(code)}s` });
      assertInvalid(verdict, [{ path: "/text", keyword: "pattern" }]);
      assert.match(refused(verdict).validationErrors?.[0]?.message ?? "", new RegExp(name.replace("+", "\\+")));
    });
  }

  for (const code of [0x20, 0x7e, 0xa0, 0xad, 0x2028]) {
    const name = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
    it(`takes ${name}, which is no control character of the rule`, () => {
      assert.equal(judge({ text: `a${String.fromCharCode(code)}b` }).ok, true);
    });
  }

  it("refuses a trailing newline (the tool adds the one \\n itself)", () => {
    assertInvalid(judge({ text: "y\n" }), [{ path: "/text", keyword: "pattern" }]);
  });

  for (const [name, text] of [
    ["a number", 1],
    ["a boolean", true],
    ["null", null],
    ["an object", { value: "y" }],
    ["an array", ["y"]],
  ] as const) {
    it(`refuses a text that is ${name}`, () => {
      assertInvalid(judge({ text }), [{ path: "/text", keyword: "type" }]);
    });
  }

  it("refuses a missing text", () => {
    assertInvalid(judge({}), [{ path: "", keyword: "required" }]);
  });

  it("refuses extra payload keys", () => {
    assertInvalid(judge({ text: "y", approved: true }), [{ path: "/approved", keyword: "additionalProperties" }]);
    assertInvalid(judge({ approved: true }), [
      { path: "/approved", keyword: "additionalProperties" },
      { path: "", keyword: "required" },
    ]);
  });

  for (const [name, text] of [
    ["a lone high surrogate", "y\uD800"],
    ["a lone low surrogate", "\uDC00y"],
    ["two high surrogates", "\uD83D\uD83D"],
    ["a pair in the wrong order", "\uDE00\uD83D"],
  ] as const) {
    it(`refuses ${name} (it would reach the command as U+FFFD)`, () => {
      const verdict = judge({ text });
      assertInvalid(verdict, [{ path: "/text", keyword: "pattern" }]);
      assert.match(refused(verdict).validationErrors?.[0]?.message ?? "", /lone surrogate U\+D[89A-F]/);
    });
  }

  it("takes a surrogate pair (an emoji)", () => {
    assert.equal(judge({ text: "\uD83D\uDE00 ok" }).ok, true);
  });

  it("property: a string is taken exactly when it is well-formed, has no control character and fits 4096 bytes", () => {
    const wellFormed = (text: string) => Buffer.from(text).toString() === text;
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }),
        fc.string({ unit: fc.constantFrom("\uD800", "\uDFFF", "a", "\u0007"), maxLength: 4 }),
        (a, b) => {
          const text = a + b;
          const control = [...text].some((char) => {
            const code = char.codePointAt(0) as number;
            return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
          });
          const expected = wellFormed(text) && !control && Buffer.byteLength(text) <= 4096;
          assert.equal(judge({ text }).ok, expected, JSON.stringify(text));
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("reports a text that is too long and has a control character twice", () => {
    assertInvalid(judge({ text: `\u0000${"a".repeat(4096)}` }), [
      { path: "/text", keyword: "maxLength" },
      { path: "/text", keyword: "pattern" },
    ]);
  });
});

describe("judgeAnswer: the first failing check decides", () => {
  const prompt = openPrompt();
  const stale = openPrompt({ deadline: new Date(NOW - 1000).toISOString() });
  const badPayload = { text: 1 };

  it("bad shape before no task", () => {
    assertInvalid(judgeAnswer({ prompt_id: "x", payload: {} }, CONTEXT, undefined, NOW), [
      { path: "/prompt_id", keyword: "pattern" },
    ]);
  });

  it("no task before a bad payload", () => {
    assert.equal(refused(judgeAnswer(answerFor(prompt, badPayload), CONTEXT, undefined, NOW)).code, "task_not_found");
  });

  it("no live binding before a context mismatch", () => {
    const target = targetFor(prompt, { liveBinding: false });
    assertUnknown(judgeAnswer(answerFor(prompt), "other", target, NOW), "no_live_binding");
  });

  it("context mismatch before an unknown prompt", () => {
    assertUnknown(judgeAnswer(answerFor(openPrompt()), "other", targetFor(prompt), NOW), "context_mismatch");
  });

  it("unknown prompt before a passed deadline", () => {
    assertUnknown(judgeAnswer(answerFor(openPrompt()), CONTEXT, targetFor(stale), NOW), "unknown_or_answered");
  });

  it("passed deadline before a restricted responder", () => {
    const restricted = { ...stale, allowedResponders: ["specific:x"] };
    assertUnknown(judgeAnswer(answerFor(restricted), CONTEXT, targetFor(restricted), NOW), "deadline_passed");
  });

  it("restricted responder before a bad payload", () => {
    const restricted = openPrompt({ allowedResponders: ["specific:x"] });
    const verdict = judgeAnswer(answerFor(restricted, badPayload), CONTEXT, targetFor(restricted), NOW);
    assertUnknown(verdict, "restricted_responder");
  });

  it("a passed deadline before a bad payload", () => {
    assertUnknown(judgeAnswer(answerFor(stale, badPayload), CONTEXT, targetFor(stale), NOW), "deadline_passed");
  });

  it("bad shape before everything else at once", () => {
    const response = { prompt_id: stale.id, payload: [] };
    const target = targetFor(stale, { liveBinding: false });
    assertInvalid(judgeAnswer(response, "other", target, NOW), [{ path: "/payload", keyword: "type" }]);
  });
});

describe("prompt envelopes", () => {
  const schema = JSON.parse(readFileSync(SCHEMA_COPY, "utf8"));
  const ajv = new Ajv2020.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);

  it("the schema copy in test/fixtures/hitl is the shared spec's (when the spec is beside the checkout)", (t) => {
    if (!existsSync(SCHEMA_SHARED)) {
      t.skip(
        "the spec folder ../shared is not beside this checkout, so the copy in test/fixtures/hitl is not compared with it",
      );
      return;
    }
    assert.deepEqual(schema, JSON.parse(readFileSync(SCHEMA_SHARED, "utf8")));
  });

  it("promptEnvelope(newPrompt(...)) is valid against envelope.schema.json", () => {
    for (const text of ["Continue? [y/N]", "x", "€".repeat(4096), "Do you want to proceed? (yes/no)"]) {
      const envelope = promptEnvelope(newPrompt(text, new Date(Date.now() + 300_000)));
      assert.ok(validate(envelope), JSON.stringify(validate.errors));
    }
  });

  it("has exactly the contract's fields", () => {
    const deadline = new Date("2026-05-09T18:30:00.000Z");
    const prompt = newPrompt("Continue? [y/N]", deadline);
    const envelope = promptEnvelope(prompt);
    assert.deepEqual(envelope, {
      prompt_id: prompt.id,
      prompt: "Continue? [y/N]",
      response_schema: {
        type: "object",
        additionalProperties: false,
        required: ["text"],
        properties: { text: { type: "string", maxLength: 4096 } },
      },
      deadline: "2026-05-09T18:30:00.000Z",
      allowed_responders: ["any"],
    });
    assert.deepEqual(RESPONSE_SCHEMA, envelope.response_schema);
    assert.ok(JSON.stringify(envelope.response_schema).length <= 64 * 1024);
  });

  it("the response schema compiles as JSON Schema 2020-12 and agrees with the payload check", () => {
    const check = ajv.compile(RESPONSE_SCHEMA);
    const prompt = openPrompt();
    for (const payload of [{ text: "y" }, {}, { text: 1 }, { text: "y", extra: 1 }, { text: "a".repeat(4096) }]) {
      const ok = judgeAnswer(answerFor(prompt, payload), CONTEXT, targetFor(prompt), NOW).ok;
      assert.equal(ok, check(payload), JSON.stringify(payload));
    }
  });

  it("the schema refuses an envelope that breaks it (the validator is not vacuous)", () => {
    const envelope = promptEnvelope(newPrompt("Continue? [y/N]", new Date()));
    assert.equal(validate({ ...envelope, extra: 1 }), false);
    assert.equal(validate({ ...envelope, prompt_id: "nope" }), false);
    assert.equal(validate({ ...envelope, deadline: "tomorrow" }), false);
    assert.equal(validate({ ...envelope, prompt: "" }), false);
  });

  it("prompt ids are UUID v4 and new for every prompt", () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const { id } = newPrompt("Continue? [y/N]", new Date());
      assert.match(id, UUID_V4);
      ids.add(id);
    }
    assert.equal(ids.size, 1000);
  });

  it("a new prompt carries the deadline it was given and any responder", () => {
    const deadline = new Date(NOW + 1234);
    const prompt = newPrompt("Are you sure?", deadline);
    assert.equal(prompt.text, "Are you sure?");
    assert.equal(prompt.deadline, deadline.toISOString());
    assert.deepEqual(prompt.allowedResponders, ["any"]);
  });
});
