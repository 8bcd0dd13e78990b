// Both codecs make the service's SendRequest: the core's message and metadata, and the send's configuration named
// for what it means, never the other family's wire shape (docs/architecture.md, "The codecs").
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import * as v from "valibot";
import { analyzeSendParams } from "../../src/a2a/input-file.js";
import * as v03 from "../../src/a2a/v0_3/codec.js";
import { decodeSend03 } from "../../src/a2a/v0_3/decode.js";
import { SendParamsSchema } from "../../src/a2a/v0_3/message.js";
import * as v10 from "../../src/a2a/v1_0/codec.js";
import { decodeSend10 } from "../../src/a2a/v1_0/decode.js";
import { analyzeSend, type Message, type SendInput } from "../../src/core/envelope/envelope.js";
import { problemsFromIssues } from "../../src/core/envelope/problems.js";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { taskView } from "../helpers/events.js";

/** The request a codec makes, or the refusal it throws (an answer's message checks, a bad inline push config). */
function requestOr(decode: () => ReturnType<typeof decodeSend03>) {
  try {
    return decode().request();
  } catch {
    return undefined;
  }
}

const anything = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 2 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 3 }), fc.string({ maxLength: 3 }), { maxKeys: 2 }),
);

/** A 0.3 part, well formed or not. */
const part03 = fc.oneof(
  fc.record({ kind: fc.constant("text"), text: fc.oneof(fc.string({ maxLength: 6 }), anything) }),
  fc.record({ kind: fc.constant("file"), file: fc.oneof(fc.record({ uri: fc.webUrl() }), anything) }),
  fc.record({ kind: fc.constant("data"), data: anything }),
  fc.record({ kind: anything }, { requiredKeys: [] }),
  anything,
);

const metadata = fc.oneof(
  fc.constant(undefined),
  fc.record({ k: fc.string({ maxLength: 3 }) }),
  fc.constant({ [ADAPTER_URI]: { adapter: "x" } }),
  anything,
);

const message03 = fc.oneof(
  fc.record(
    {
      role: fc.oneof(fc.constant("user"), anything),
      parts: fc.oneof(fc.array(part03, { maxLength: 3 }), anything),
      messageId: fc.string({ maxLength: 4 }),
      metadata,
    },
    { requiredKeys: ["role", "parts"] },
  ),
  anything,
);

const configuration03 = fc.oneof(
  fc.constant(undefined),
  fc.record(
    {
      blocking: fc.oneof(fc.boolean(), anything),
      historyLength: fc.oneof(fc.nat(5), anything),
      acceptedOutputModes: fc.oneof(fc.constant(["text/plain"]), anything),
    },
    { requiredKeys: [] },
  ),
  anything,
);

const params03 = fc.record(
  { message: message03, configuration: configuration03, metadata },
  { requiredKeys: ["message"] },
);

describe("the 0.3 codec's SendRequest", () => {
  it("is judged by the core exactly as the same params in a file (shape A): same problems, same order, same message", () => {
    fc.assert(
      fc.property(params03, (params) => {
        const request = requestOr(() => decodeSend03(params));
        fc.pre(request !== undefined);
        if (!request) return;
        const analysis = analyzeSend(request, request.problems);
        assert.deepEqual(analysis, analyzeSendParams(params));
        // The problems come first in the order one schema of the whole params finds them (message, configuration,
        // metadata), as when the core read the 0.3 params itself.
        const parsed = v.safeParse(SendParamsSchema, params);
        const whole = parsed.success ? [] : problemsFromIssues(parsed.issues, "");
        assert.deepEqual(analysis.valid ? [] : analysis.errors.slice(0, whole.length), whole);
      }),
      { numRuns: 300 },
    );
  });

  it("names its configuration for what it means: blocking false answers at once", () => {
    const message = { role: "user", parts: [{ kind: "text", text: "y" }] };
    const request = decodeSend03({ message, configuration: { blocking: false, historyLength: 2 } }).request();
    assert.equal(request.returnImmediately, true);
    assert.equal(request.historyLength, 2);
    assert.deepEqual(request.problems, []);
    assert.equal("configuration" in request, false, "no wire configuration reaches the service");
    const bad = decodeSend03({ message, configuration: { blocking: "no" } }).request();
    assert.deepEqual(
      bad.problems.map((problem) => problem.path),
      ["/configuration/blocking"],
    );
  });
});

/** A 1.0 Part with one content, and the same part as 0.3 spells it. */
const partPair = fc.oneof(
  fc.record({ text: fc.string({ maxLength: 6 }) }).map((p) => [{ ...p }, { kind: "text", text: p.text }] as const),
  fc
    .record({ url: fc.webUrl(), filename: fc.string({ maxLength: 4 }), mediaType: fc.constant("text/csv") })
    .map((p) => [{ ...p }, { kind: "file", file: { uri: p.url, name: p.filename, mimeType: p.mediaType } }] as const),
  fc
    .record({ raw: fc.base64String({ maxLength: 8 }) })
    .map((p) => [{ ...p }, { kind: "file", file: { bytes: p.raw } }] as const),
  fc
    .record({
      data: fc.dictionary(fc.string({ maxLength: 3 }), fc.nat(), { maxKeys: 2 }),
      metadata: fc.constant({ m: 1 }),
    })
    .map((p) => [{ ...p }, { kind: "data", data: p.data, metadata: p.metadata }] as const),
);

const sendPair = fc.record({
  messageId: fc.uuid(),
  parts: fc.array(partPair, { minLength: 1, maxLength: 3 }),
  contextId: fc.option(fc.string({ minLength: 1, maxLength: 4 }), { nil: undefined }),
  metadata: fc.option(fc.record({ k: fc.string({ maxLength: 3 }) }, { noNullPrototype: true }), { nil: undefined }),
  extensions: fc.option(fc.constant(["https://example.com/ext"]), { nil: undefined }),
  answerAtOnce: fc.boolean(),
  historyLength: fc.option(fc.nat(5), { nil: undefined }),
});

type Pair = typeof sendPair extends fc.Arbitrary<infer T> ? T : never;

function wireSends(pair: Pair) {
  const common = {
    messageId: pair.messageId,
    ...(pair.contextId === undefined ? {} : { contextId: pair.contextId }),
    ...(pair.metadata === undefined ? {} : { metadata: pair.metadata }),
    ...(pair.extensions === undefined ? {} : { extensions: pair.extensions }),
  };
  const history = pair.historyLength === undefined ? {} : { historyLength: pair.historyLength };
  const send10 = {
    message: { ...common, role: "ROLE_USER", parts: pair.parts.map(([wire]) => wire) },
    configuration: { returnImmediately: pair.answerAtOnce, ...history },
  };
  const send03 = {
    message: { ...common, role: "user", parts: pair.parts.map(([, core]) => core) },
    configuration: { blocking: !pair.answerAtOnce, ...history },
  };
  return { send10, send03 };
}

describe("the 1.0 codec's SendRequest", () => {
  it("is the one the 0.3 codec makes of the same send: neither family is read as the other", () => {
    fc.assert(
      fc.property(sendPair, (pair) => {
        const { send10, send03 } = wireSends(pair);
        assert.deepEqual(decodeSend10(send10).request(), decodeSend03(send03).request());
      }),
    );
  });

  it("reads snake_case names too (CONTRACT 7.2)", () => {
    const request = decodeSend10({
      message: {
        message_id: "m",
        role: "ROLE_USER",
        context_id: "c",
        parts: [{ text: "y", media_type: "text/plain" }],
      },
      configuration: { return_immediately: true, history_length: 1 },
    }).request();
    assert.deepEqual(request.message.seen, {
      messageId: "m",
      role: "user",
      contextId: "c",
      parts: [{ type: "text", text: "y", mediaType: "text/plain" }],
    });
    assert.equal(request.returnImmediately, true);
    assert.equal(request.historyLength, 1);
  });
});

/** The message the core keeps of a send, written back by a family's codec as a task's history. */
function keptAndWritten(request: SendInput, family: "0.3" | "1.0") {
  const analysis = analyzeSend(request);
  assert.ok(analysis.valid && analysis.dispatch === "echo", JSON.stringify(analysis));
  const task = taskView({ dispatch: "echo", state: "completed", exitCode: 0, message: analysis.message as Message });
  const [written] = (family === "1.0" ? v10.taskOf(task).history : v03.taskOf(task).history) ?? [];
  return written as unknown as Record<string, unknown>;
}

describe("wire → core → wire", () => {
  it("a 1.0 text message comes back from the core as it was sent", () => {
    fc.assert(
      fc.property(sendPair, (pair) => {
        const texts = { ...pair, parts: pair.parts.filter(([wire]) => "text" in wire) };
        fc.pre(texts.parts.length > 0);
        const { send10, send03 } = wireSends(texts);
        const written10 = keptAndWritten(decodeSend10(send10).request(), "1.0");
        const { contextId: _c10, taskId: _t10, ...sent10 } = written10;
        const { contextId: _c, ...message10 } = send10.message;
        assert.deepEqual(sent10, message10);
        const written03 = keptAndWritten(decodeSend03(send03).request(), "0.3");
        const { contextId: _c03, taskId: _t03, kind, ...sent03 } = written03;
        assert.equal(kind, "message");
        const { contextId: _c3, ...message03 } = send03.message;
        assert.deepEqual(sent03, message03);
      }),
    );
  });
});
