// CONTRACT section 5.1, by property: LineSplitter frames do not depend on how the input is cut, and a real
// `serve --stdio` bridge answers each of ~300 random and broken lines with exactly one error, then still serves.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { type Frame, LineSplitter } from "../../src/io/line-splitter.js";
import { RpcBridge } from "../helpers/bridge.js";
import type { Wire } from "../helpers/wire.js";

const OPTIONS = { includeErrorInReport: true } as const;

/** Bytes with newlines, carriage returns, blanks and non-UTF-8 bytes well represented. */
const byte = fc.oneof(
  { arbitrary: fc.constant(0x0a), weight: 3 },
  { arbitrary: fc.constant(0x0d), weight: 1 },
  { arbitrary: fc.constantFrom(0x20, 0x09), weight: 1 },
  { arbitrary: fc.constantFrom(0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9d, 0x84, 0x9e, 0xff), weight: 2 },
  { arbitrary: fc.integer({ min: 0, max: 255 }), weight: 6 },
);
const bytes = fc.array(byte, { maxLength: 400 }).map((list) => Buffer.from(list));
const limit = fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constant(1024 * 1024));

function framesOf(pieces: Buffer[], maxLineBytes: number): Frame[] {
  const splitter = new LineSplitter(maxLineBytes);
  const frames = pieces.flatMap((piece) => splitter.push(piece));
  return [...frames, ...splitter.end()];
}

/** `input` cut at the given points (taken modulo its length; empty pieces included). */
function cut(input: Buffer, points: number[]): Buffer[] {
  const at = [...new Set(points.map((p) => p % (input.length + 1)))].sort((a, b) => a - b);
  const pieces: Buffer[] = [];
  let start = 0;
  for (const point of at) {
    pieces.push(input.subarray(start, point));
    start = point;
  }
  pieces.push(input.subarray(start));
  return pieces;
}

/** The contract's framing, written out: lines end at \n, a trailing \r is ignored, a line over the limit is one frame. */
function modelFrames(input: Buffer, maxLineBytes: number): Array<{ kind: string; text?: string }> {
  const frames: Array<{ kind: string; text?: string }> = [];
  const lines: Buffer[] = [];
  let start = 0;
  for (let i = input.indexOf(0x0a); i >= 0; i = input.indexOf(0x0a, start)) {
    lines.push(input.subarray(start, i));
    start = i + 1;
  }
  if (start < input.length) lines.push(input.subarray(start));
  for (const raw of lines) {
    const line = raw.at(-1) === 0x0d ? raw.subarray(0, -1) : raw;
    if (line.length > maxLineBytes) frames.push({ kind: "oversized" });
    // Blank: JSON's whitespace only (space, tab, \r); the bytes are kept as they are, UTF-8 or not.
    else if (line.some((byte) => byte !== 0x20 && byte !== 0x09 && byte !== 0x0d))
      frames.push({ kind: "line", text: line.toString("latin1") });
  }
  return frames;
}

const shapeOf = (frames: Frame[]) =>
  frames.map((f) => (f.kind === "line" ? { kind: "line", text: f.line.toString("latin1") } : { kind: f.kind }));

describe("LineSplitter, by property", () => {
  it("random bytes cut at random points give the same frames as the whole input pushed at once (3000 runs)", () => {
    fc.assert(
      fc.property(bytes, fc.array(fc.nat(), { maxLength: 30 }), limit, (input, points, max) => {
        assert.deepEqual(framesOf(cut(input, points), max), framesOf([input], max));
      }),
      { ...OPTIONS, numRuns: 3000 },
    );
  });

  it("byte by byte gives the same frames as the whole input (500 runs)", () => {
    fc.assert(
      fc.property(bytes, limit, (input, max) => {
        const single = [...input].map((b) => Buffer.from([b]));
        assert.deepEqual(framesOf(single, max), framesOf([input], max));
      }),
      { ...OPTIONS, numRuns: 500 },
    );
  });

  it("valid UTF-8 text: the frames are the contract's (lines, \\r dropped, blank lines skipped, long lines oversized)", () => {
    const text = fc.string({
      unit: fc.constantFrom("a", "{", "}", '"', " ", "\t", "\r", "\n", "\n", "é", "€", "𝄞", "\u2028"),
      maxLength: 200,
    });
    fc.assert(
      fc.property(text, fc.array(fc.nat(), { maxLength: 10 }), limit, (input, points, max) => {
        const buffer = Buffer.from(input, "utf8");
        assert.deepEqual(shapeOf(framesOf(cut(buffer, points), max)), modelFrames(buffer, max));
      }),
      { ...OPTIONS, numRuns: 2000 },
    );
  });

  it("an oversized line reports the bytes it had, however it was cut", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 200 }),
        fc.array(fc.nat()),
        (max, extra, points) => {
          const line = Buffer.alloc(max + extra, 0x61);
          const frames = framesOf(cut(Buffer.concat([line, Buffer.from("\n7\n")]), points), max);
          assert.deepEqual(frames, [
            { kind: "oversized", bytes: max + extra },
            { kind: "line", line: Buffer.from("7") },
          ]);
        },
      ),
      { ...OPTIONS, numRuns: 500 },
    );
  });

  it("a line of invalid UTF-8 under the limit is a line (a parse error on the wire), not an oversized one", () => {
    // The limit counts the bytes received. Five 0xff bytes decode to five U+FFFD (15 bytes), which must not push a
    // 5-byte line over a 10-byte limit.
    const frames = framesOf([Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x0a])], 10);
    assert.equal(frames.length, 1);
    assert.equal(frames[0]?.kind, "line", `got ${JSON.stringify(frames)}`);
  });
});

// --- The bridge ---------------------------------------------------------------------------------------------------

const KNOWN = new Set([
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/list",
  "tasks/cancel",
  "tasks/resubscribe",
  "agent/getCard",
]);
const isRecord = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
const wireId = (id: unknown) => (typeof id === "string" || typeof id === "number" ? id : null);

type Expected = { code: number; id: unknown };

/** What the bridge must answer to one JSON value of a line (or a batch item); undefined: nothing (a notification). */
function expectItem(value: unknown): Expected | undefined {
  if (!isRecord(value)) return { code: -32600, id: null };
  const { jsonrpc, method, id, params } = value;
  const badId = !(id === undefined || id === null || typeof id === "string" || typeof id === "number");
  const badParams = params !== undefined && typeof params !== "object";
  if (jsonrpc !== "2.0" || typeof method !== "string" || badId || badParams) return { code: -32600, id: wireId(id) };
  if ("result" in value || "error" in value) return { code: -32600, id: wireId(id) };
  if (id === undefined) return undefined;
  // Known methods are only generated with params they must refuse.
  return { code: KNOWN.has(method) ? refusalCode(params) : -32601, id };
}

/** Most refused params are -32602; a message to a task that does not exist, or with a part we do not take, is not. */
const OTHER_REFUSALS = new Map<string, number>([
  // A2A 1.0 §3.4.2: a taskId that names no task is TaskNotFound (CONTRACT 7.1).
  [JSON.stringify({ message: { role: "user", parts: [{ kind: "text", text: "x" }], taskId: "t-1" } }), -32001],
  // A part that is not text/plain is ContentTypeNotSupported (CONTRACT 3.4).
  [JSON.stringify({ message: { role: "user", parts: [{ kind: "data", data: {} }] } }), -32005],
]);
const refusalCode = (params: unknown) => OTHER_REFUSALS.get(JSON.stringify(params)) ?? -32602;

/** What the bridge must answer to a line: one error, a batch of errors, or nothing. */
function expectLine(line: Buffer): Expected | Expected[] | undefined {
  let text = line.toString("utf8");
  if (text.endsWith("\r")) text = text.slice(0, -1);
  if (text.trim() === "") return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { code: -32700, id: null };
  }
  if (!Array.isArray(value)) return expectItem(value);
  if (value.length === 0) return { code: -32600, id: null };
  const items = value.map(expectItem).filter((item) => item !== undefined);
  return items.length === 0 ? undefined : items;
}

const id = fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constantFrom(0, -1, 1.5, "", "null"));
const methodName = fc
  .oneof(
    fc.string({ unit: "binary", maxLength: 16 }),
    fc.constantFrom(
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "rpc.discover",
      "message/Send",
      "tasks/get ",
      " tasks/get",
      "tasks/getAll",
      "agent/getcard",
      "message/send\u0000",
      "",
    ),
  )
  .filter((m) => !KNOWN.has(m));
const params = fc.option(
  fc.oneof(fc.object({ maxDepth: 2 }), fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 })),
  {
    nil: undefined,
  },
);

/** Well-formed requests for methods that do not exist → -32601. */
const unknownMethod = fc
  .record({ id: fc.oneof(id, fc.constant(null)), method: methodName, params })
  .map(({ params: p, ...rest }) => ({ jsonrpc: "2.0", ...rest, ...(p === undefined ? {} : { params: p }) }));

/** Known methods with params they refuse → -32602, or the code of OTHER_REFUSALS (no task is ever created). */
const badParams = fc.oneof(
  fc
    .tuple(
      fc.constantFrom("tasks/get", "tasks/cancel", "tasks/resubscribe"),
      fc.oneof(
        fc.constantFrom({}, [], null, { id: 5 }, { id: null }, { id: ["x"] }, { id: "x", historyLength: -1 }),
        fc.constantFrom({ id: "x", historyLength: 1.5 }, { id: "x", historyLength: "2" }, { task: "x" }),
        fc.array(fc.string(), { maxLength: 2 }),
        fc.object({ maxDepth: 1 }).filter((o) => typeof o.id !== "string"),
      ),
      id,
    )
    .map(([method, p, i]) => ({ jsonrpc: "2.0", id: i, method, params: p })),
  fc
    .tuple(
      fc.constantFrom("message/send", "message/stream"),
      fc.oneof(
        fc.constantFrom(null, [], {}, { message: null }, { message: "hello" }, { message: [] }),
        fc.constantFrom(
          { message: { role: "agent", parts: [{ kind: "text", text: "x" }] } },
          { message: { role: "user", parts: "x" } },
          { message: { role: "user", parts: [] } },
          { message: { role: "user", parts: [{ kind: "data", data: {} }] } },
          { message: { role: "user", parts: [{ kind: "text", text: "x" }], taskId: "t-1" } },
          { message: { role: "user", parts: [{ kind: "text" }] } },
          {
            message: {
              role: "user",
              parts: [{ kind: "text", text: "x" }],
              metadata: { [ADAPTER_URI]: { adapter: "x" } },
            },
          },
        ),
        fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }),
        fc.object({ maxDepth: 2 }).filter((o) => !("message" in o)),
      ),
      id,
    )
    .map(([method, p, i]) => ({ jsonrpc: "2.0", id: i, method, params: p })),
);

/** JSON values that are not requests → -32600. */
const notRequest = fc.oneof(
  fc.jsonValue({ maxDepth: 0 }),
  fc
    .tuple(
      fc.record({ id, method: fc.constantFrom("agent/getCard", "x/y") }),
      fc.constantFrom(
        { jsonrpc: undefined },
        { jsonrpc: "1.0" },
        { jsonrpc: 2 },
        { jsonrpc: "2.0 " },
        { method: undefined },
        { method: 5 },
        { method: null },
        { method: ["agent/getCard"] },
        { id: { a: 1 } },
        { id: [1] },
        { id: true },
        { params: "x" },
        { params: 5 },
        { params: false },
        { result: 1 },
        { error: { code: 1, message: "x" } },
      ),
    )
    .map(([base, defect]) => {
      const value: Record<string, unknown> = { jsonrpc: "2.0", ...base };
      for (const [key, v] of Object.entries(defect)) {
        if (v === undefined) delete value[key];
        else value[key] = v;
      }
      return value;
    }),
);

const batch = fc.oneof(
  { arbitrary: fc.array(fc.oneof(notRequest, unknownMethod, badParams), { minLength: 1, maxLength: 5 }), weight: 5 },
  { arbitrary: fc.constant([]), weight: 1 },
);

/** A request's text with one mutation: truncated, a character dropped, one inserted or one doubled. */
const brokenText = fc
  .tuple(
    // A method no mutation can turn into a known one.
    fc
      .string({ unit: fc.constantFrom(..."abcxyz0189-_"), minLength: 1, maxLength: 10 })
      .map((name) => JSON.stringify({ jsonrpc: "2.0", id: 1, method: `x-${name}`, params: { a: [1, "b"], c: null } })),
    fc.constantFrom("truncate", "drop", "insert", "double"),
    fc.nat(),
    fc.constantFrom("{", "}", "[", "]", '"', ",", ":", "\\", "x", "0", " ", "\u0000", "\u007f"),
  )
  .map(([text, op, at, char]) => {
    const i = at % text.length;
    if (op === "truncate") return text.slice(0, i);
    if (op === "drop") return text.slice(0, i) + text.slice(i + 1);
    if (op === "insert") return text.slice(0, i) + char + text.slice(i);
    return text.slice(0, i) + text.slice(i, i + 1).repeat(2) + text.slice(i + 1);
  });

const randomBytes = fc
  .uint8Array({ minLength: 1, maxLength: 200 })
  .map((list) => Buffer.from([...list].filter((b) => b !== 0x0a)));

const line: fc.Arbitrary<{ kind: string; bytes: Buffer }> = fc.oneof(
  randomBytes.map((b) => ({ kind: "random bytes", bytes: b })),
  brokenText.map((t) => ({ kind: "broken JSON", bytes: Buffer.from(t) })),
  notRequest.map((v) => ({ kind: "not a request", bytes: Buffer.from(JSON.stringify(v)) })),
  unknownMethod.map((v) => ({ kind: "unknown method", bytes: Buffer.from(JSON.stringify(v)) })),
  badParams.map((v) => ({ kind: "bad params", bytes: Buffer.from(JSON.stringify(v)) })),
  batch.map((v) => ({ kind: "batch", bytes: Buffer.from(JSON.stringify(v)) })),
  fc.constantFrom("{}\r", "[]\r", "null\r", "\r\r").map((t) => ({ kind: "with \\r", bytes: Buffer.from(t) })),
);

describe("serve --stdio: random and broken lines, each answered with exactly one error", () => {
  const seed = Number(process.env.FC_SEED ?? Math.floor(Math.random() * 2 ** 31));
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge();
  });
  after(() => bridge.kill());

  it(`~300 lines, one at a time (seed ${seed}; FC_SEED=${seed} replays them), then agent/getCard works`, async () => {
    const lines = fc
      .sample(line, { numRuns: 320, seed })
      .map((l) => ({ ...l, expected: expectLine(l.bytes) }))
      .filter((l) => l.expected !== undefined);
    assert.ok(lines.length >= 250, `only ${lines.length} lines expect an answer`);
    const kinds = new Set(lines.map((l) => l.kind));
    assert.ok(kinds.size >= 6, `line kinds: ${[...kinds].join(", ")}`);

    for (const [index, { kind, bytes: body, expected }] of lines.entries()) {
      assert.ok(!body.includes(0x0a));
      bridge.sendLine(body);
      const what = `line ${index} (${kind}, seed ${seed}): ${JSON.stringify(body.toString("utf8")).slice(0, 300)}`;
      const answer: Wire = await bridge.nextRawResponse(10_000).catch((error) => assert.fail(`${what}: ${error}`));
      const context = `${what}\nanswer: ${JSON.stringify(answer).slice(0, 600)}`;
      if (Array.isArray(expected)) {
        assert.ok(Array.isArray(answer), `expected a batch answer to ${context}`);
        assert.deepEqual(
          answer.map((r: Wire) => ({ code: r?.error?.code, id: r?.id })),
          expected,
          context,
        );
      } else {
        assert.ok(!Array.isArray(answer), `expected one answer to ${context}`);
        assert.deepEqual({ code: answer?.error?.code, id: answer?.id }, expected, context);
      }
      for (const response of [answer].flat()) {
        assert.equal(response.jsonrpc, "2.0", context);
        assert.equal(response.result, undefined, context);
        assert.equal(typeof response.error.message, "string", context);
        if (response.error.code === -32602) assert.ok(response.error.data !== undefined, `-32602 has data: ${context}`);
      }
    }

    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    // Exactly one answer a line: nothing came after the last one but the card.
    assert.deepEqual(bridge.pendingRawResponses(), []);
    assert.equal(bridge.lineCount, lines.length + 1, "one answer a line, then the card");
  });

  it("the same kind of lines written all at once: one answer each (as a multiset), then the bridge still serves", async () => {
    const lines = fc
      .sample(line, { numRuns: 320, seed: seed + 1 })
      .map((l) => ({ ...l, expected: expectLine(l.bytes) }))
      .filter((l) => l.expected !== undefined);
    const before = bridge.lineCount;
    bridge.sendBytes(Buffer.concat(lines.flatMap((l) => [l.bytes, Buffer.from("\n")])));
    const key = (answer: Expected | Expected[]) => JSON.stringify(answer);
    const expected = lines.map((l) => key(l.expected as Expected | Expected[])).sort();
    const answers: Wire[] = [];
    for (let i = 0; i < lines.length; i++) answers.push(await bridge.nextRawResponse(20_000));
    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    const got = answers
      .map((a: Wire) =>
        key(
          Array.isArray(a)
            ? a.map((r: Wire) => ({ code: r?.error?.code, id: r?.id }))
            : { code: a?.error?.code, id: a?.id },
        ),
      )
      .sort();
    assert.deepEqual(got, expected, `seed ${seed + 1}`);
    assert.deepEqual(bridge.pendingRawResponses(), []);
    assert.equal(bridge.lineCount, before + lines.length + 1, "one answer a line, then the card");
    assert.deepEqual(bridge.protocolProblems, [], "stdout carries protocol lines only");
    // No bad request created a task.
    const list = await bridge.call("tasks/list");
    assert.deepEqual(list.tasks, []);
    assert.equal(bridge.lineCount, before + lines.length + 2, "and no tasks/event");
    const exit = await bridge.close();
    assert.deepEqual(exit, { code: 0, signal: null }, bridge.stderr);
  });
});
