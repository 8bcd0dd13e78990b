// The fast event encoder writes exactly what JSON.stringify writes, for any text and any event.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { jsonString } from "../../src/a2a/json-string.js";
import { eventOf, type WireEvent } from "../../src/a2a/v0_3/codec.js";
import { eventJson, notificationJson } from "../../src/a2a/v0_3/event-json.js";
import { type StreamResponse1, streamResponseOf } from "../../src/a2a/v1_0/codec.js";
import { streamResponseJson } from "../../src/a2a/v1_0/event-json.js";
import { output, taskView } from "../helpers/events.js";

/** Any UTF-16 text, lone surrogates included (a string of random code units). */
const anyText = fc
  .array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 })
  .map((units) => String.fromCharCode(...units));
/** Text that looks like command output: lines, tabs, quotes, backslashes, escapes, some non-ASCII. */
const outputLike = fc
  .array(fc.constantFrom("ok", " ", "\n", "\r\n", "\t", '"', "\\", "\u001b[31m", "é", "✓", "😀", "\u2028", "\u0000"), {
    maxLength: 100,
  })
  .map((pieces) => pieces.join(""));

const artifactUpdate = fc.record({
  kind: fc.constant("artifact-update" as const),
  taskId: anyText,
  contextId: anyText,
  artifact: fc.record(
    {
      artifactId: fc.constantFrom("stdout" as const, "stderr" as const),
      name: fc.constantFrom("stdout" as const, "stderr" as const),
      parts: fc.array(
        fc.record(
          {
            kind: fc.constant("text" as const),
            text: fc.oneof(anyText, outputLike),
            metadata: fc.record({ seq: fc.nat() }),
          },
          { requiredKeys: ["kind", "text"] },
        ),
        { maxLength: 3 },
      ),
      metadata: fc.record({ total_bytes: fc.nat(), dropped_bytes: fc.nat() }),
    },
    { requiredKeys: ["artifactId", "name", "parts"] },
  ),
  append: fc.boolean(),
  lastChunk: fc.boolean(),
});

describe("jsonString", () => {
  it("is JSON.stringify for every single UTF-16 code unit", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const text = String.fromCharCode(code);
      assert.equal(jsonString(text), JSON.stringify(text), `U+${code.toString(16)}`);
    }
  });
  it("is JSON.stringify for surrogate pairs, lone surrogates and every escape in one string", () => {
    const texts = ["😀", "a\ud800b", "\udc00", "\ud800\ud800\udc00", 'q"b\\s/\b\f\n\r\t\u0001\u001f\u007f', ""];
    for (const text of texts) assert.equal(jsonString(text), JSON.stringify(text));
  });
  it("is JSON.stringify for any text (property)", () => {
    fc.assert(
      fc.property(fc.oneof(anyText, outputLike), (text) => jsonString(text) === JSON.stringify(text)),
      { numRuns: 5000 },
    );
  });
  it("is JSON.stringify for a 64 KiB chunk of lines", () => {
    const text = `${"x".repeat(1023)}\n`.repeat(64);
    assert.equal(jsonString(text), JSON.stringify(text));
  });
});

describe("eventJson and notificationJson", () => {
  it("write what JSON.stringify writes for any artifact-update (property)", () => {
    fc.assert(
      fc.property(artifactUpdate, (event) => {
        assert.equal(eventJson(event), JSON.stringify(event));
        const notification = { jsonrpc: "2.0", method: "tasks/event", params: event };
        assert.equal(notificationJson(event), JSON.stringify(notification));
      }),
      { numRuns: 2000 },
    );
  });
  it("write what JSON.stringify writes for the events the codec makes", () => {
    const events = [
      eventOf(output('first "chunk"\n', "stdout", true)),
      eventOf(output("next\tchunk\r\n", "stderr")),
      eventOf({ type: "status", task: taskView({ state: "failed", failKind: "application", exitCode: 1 }) }),
      eventOf({ type: "status", task: taskView({ state: "working" }) }),
    ] as WireEvent[];
    for (const event of events) assert.equal(eventJson(event), JSON.stringify(event));
  });
});

describe("streamResponseJson (1.0)", () => {
  it("writes what JSON.stringify writes for any artifactUpdate (property)", () => {
    // Keys in the codec's order, which the encoder writes.
    const v1 = artifactUpdate.map(
      ({ taskId, contextId, artifact, append, lastChunk }): StreamResponse1 => ({
        artifactUpdate: {
          taskId,
          contextId,
          artifact: { ...artifact, parts: artifact.parts.map(({ text }, seq) => ({ text, metadata: { seq } })) },
          append,
          lastChunk,
        },
      }),
    );
    fc.assert(
      fc.property(v1, (response) => streamResponseJson(response) === JSON.stringify(response)),
      { numRuns: 2000 },
    );
  });
  it("writes what JSON.stringify writes for the StreamResponses the codec makes", () => {
    const responses = [
      streamResponseOf(output('first "chunk"\n', "stdout", true)),
      streamResponseOf(output("next\tchunk\r\n", "stderr")),
      streamResponseOf({ type: "status", task: taskView({ state: "completed", exitCode: 0 }) }),
    ] as StreamResponse1[];
    for (const response of responses) assert.equal(streamResponseJson(response), JSON.stringify(response));
  });
});
