// The request gate (src/gate/request-gate.ts), by property: nesting is counted below the params on every shape,
// a key written twice anywhere is found, bytes that are not UTF-8 never pass (so never reach a command as U+FFFD).
import assert from "node:assert/strict";
import { isUtf8 } from "node:buffer";
import { describe, it } from "node:test";
import fc from "fast-check";
import { firstInvalidByte, passDecoded, passGate } from "../../src/gate/request-gate.js";

const MAX = 1 << 20;
const gate = (shape: "jsonrpc" | "rest", text: string | Buffer) =>
  passGate({ shape, bytes: Buffer.from(text), maxBytes: MAX });
const request = (params: string) => `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${params}}`;
const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

describe("passGate, by property", () => {
  it("params nested d levels pass exactly when d <= 100, alone, in a request and in a batch (300 runs)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 400 }), (depth) => {
        // A body of depth d: an object holding arrays d - 1 deep.
        const params = `{"a":${nested(depth - 1)}}`;
        const verdicts = [
          gate("rest", params),
          gate("jsonrpc", request(params)),
          gate("jsonrpc", `[${request(params)}]`),
        ];
        for (const verdict of verdicts) {
          assert.equal(verdict.ok, depth <= 100, `depth ${depth}: ${JSON.stringify(verdict)}`);
          if (!verdict.ok) {
            assert.equal(verdict.refusal.rule, "too_deep");
            assert.equal(verdict.refusal.words, `expected at most 100 levels of nesting, found ${depth}`);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("a key written twice on any object of any JSON value is refused at its pointer; written once it passes (500 runs)", () => {
    const key = fc.string({ maxLength: 6 });
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), key, fc.jsonValue({ maxDepth: 2 }), (value, name, extra) => {
        const text = JSON.stringify({ v: value });
        const clean = gate("rest", text);
        assert.ok(clean.ok, text);
        // The same key again on the outer object (where it is known to be): a key JSON.parse would silently merge.
        const twice = `{${JSON.stringify(name)}:${JSON.stringify(extra)},${JSON.stringify(name)}:1,${text.slice(1)}`;
        const verdict = gate("rest", twice);
        assert.ok(!verdict.ok, twice);
        assert.equal(verdict.refusal.rule, "duplicate_key");
        assert.equal(verdict.refusal.problem?.code, "duplicate_key");
        // In a JSON-RPC request the same params are refused with the same words, as that request's own refusal.
        const rpc = gate("jsonrpc", request(twice));
        assert.ok(rpc.ok);
        const [refusal] = [...rpc.refused.values()];
        assert.equal(refusal?.words, verdict.refusal.words);
        assert.equal(refusal?.inParams, true);
      }),
      { numRuns: 500 },
    );
  });

  it("bytes that are not UTF-8 are refused before they are decoded; the offset is the first bad byte (1000 runs)", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (raw) => {
        const bytes = Buffer.concat([Buffer.from('{"text":"'), Buffer.from(raw), Buffer.from('"}')]);
        const verdict = gate("rest", bytes);
        const at = firstInvalidByte(bytes);
        if (isUtf8(bytes)) {
          assert.equal(at, bytes.length);
          if (!verdict.ok) assert.notEqual(verdict.refusal.rule, "not_utf8");
          return;
        }
        assert.ok(!verdict.ok);
        assert.equal(verdict.refusal.rule, "not_utf8");
        assert.ok(at < bytes.length);
        assert.ok(isUtf8(bytes.subarray(0, at)), "everything before the offset is UTF-8");
        assert.equal(verdict.refusal.words, `expected UTF-8 text, found bytes that are not UTF-8 at byte ${at}`);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("passDecoded (a request a codec decoded: gRPC), by property", () => {
  it("judges nesting as passGate judges the value's text, in the same words (500 runs)", () => {
    // Values as deep as the gate's limit and past it: a random value wrapped in `wraps` arrays and objects.
    const deep = fc
      .tuple(fc.jsonValue({ maxDepth: 4 }), fc.integer({ min: 0, max: 120 }), fc.boolean())
      .map(([value, wraps, arrays]) => {
        let wrapped: unknown = value;
        for (let i = 0; i < wraps; i++) wrapped = arrays ? [wrapped] : { k: wrapped };
        return wrapped;
      });
    fc.assert(
      fc.property(deep, (value) => {
        const decoded = passDecoded(value);
        const text = gate("rest", JSON.stringify(value));
        assert.equal(decoded.ok, text.ok, JSON.stringify(decoded));
        if (!decoded.ok && !text.ok) {
          assert.equal(decoded.refusal.rule, "too_deep");
          assert.equal(decoded.refusal.words, text.refusal.words);
        }
        if (decoded.ok) assert.equal(decoded.value, value, "the decoded value itself goes on");
      }),
      { numRuns: 500 },
    );
  });
});

describe("passGate: each rule, in its order", () => {
  it("size, then media type, then UTF-8, then JSON", () => {
    const over = passGate({ shape: "rest", bytes: Buffer.alloc(11, 0xff), maxBytes: 10, checkContentType: true });
    assert.equal(!over.ok && over.refusal.rule, "too_large");
    const type = passGate({ shape: "rest", bytes: Buffer.from([0xff]), maxBytes: 10, checkContentType: true });
    assert.equal(!type.ok && type.refusal.rule, "content_type");
    assert.equal(!gate("rest", Buffer.from([0x7b, 0xff])).ok && "not_utf8", "not_utf8");
    const notJson = gate("jsonrpc", "{");
    assert.equal(!notJson.ok && notJson.refusal.rule, "not_json");
  });

  it("REST: an empty body is {}; JSON-RPC: a key repeated beside the params is not inParams, a repeated id names none", () => {
    const empty = gate("rest", " \r\n");
    assert.deepEqual(empty.ok && empty.value, {});
    const method = gate("jsonrpc", '{"jsonrpc":"2.0","id":7,"method":"a","method":"b"}');
    const [beside] = method.ok ? [...method.refused.values()] : [];
    assert.equal(beside?.inParams, false);
    assert.equal(beside?.id, 7);
    const id = gate("jsonrpc", '{"jsonrpc":"2.0","id":7,"id":8,"method":"a"}');
    const [noId] = id.ok ? [...id.refused.values()] : [];
    assert.equal(noId?.id, null);
  });
});
