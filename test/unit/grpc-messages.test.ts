// The gRPC codec (src/grpc/messages.ts): a request decoded once to the value the request gate judges and the
// operation reads, and a kept answer's protobuf bytes made once, the same bytes the text gives.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { create, fromBinary, type JsonObject, toBinary, toJson } from "@bufbuild/protobuf";
import {
  GetTaskRequestSchema,
  Role,
  SendMessageRequestSchema,
  type Task,
  TaskSchema,
  TaskState,
} from "../../src/grpc/gen/a2a_pb.js";
import { answerBytes, RPCS, requestParams, resultBytes } from "../../src/grpc/messages.js";
import { JsonText } from "../../src/operations/json-text.js";

const rpc = (name: string) => {
  const found = RPCS.find((candidate) => candidate.name === name);
  assert.ok(found, name);
  return found;
};

/** A JSON object nested `depth` levels deep. */
function nested(depth: number): JsonObject {
  let value: JsonObject = { leaf: true };
  for (let i = 1; i < depth; i++) value = { k: value };
  return value;
}

describe("gRPC requests: decoded once, judged by the request gate", () => {
  it("a GetTask request is the ProtoJSON value of its message", () => {
    const bytes = toBinary(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "t-1", historyLength: 3 }));
    const verdict = requestParams(rpc("GetTask"), bytes);
    assert.ok(verdict.ok);
    assert.deepEqual(verdict.value, { id: "t-1", historyLength: 3 });
  });

  it("metadata nested past 100 levels is refused in the gate's words; at 90 levels it passes", () => {
    const request = (depth: number) =>
      toBinary(
        SendMessageRequestSchema,
        create(SendMessageRequestSchema, {
          message: {
            messageId: "m",
            role: Role.USER,
            parts: [{ content: { case: "text", value: "x" } }],
            metadata: { deep: nested(depth) },
          },
        }),
      );
    const deep = requestParams(rpc("SendMessage"), request(101));
    assert.equal(deep.ok, false);
    if (!deep.ok) {
      assert.equal(deep.refusal.rule, "too_deep");
      assert.match(deep.refusal.words, /^expected at most 100 levels of nesting, found \d+$/);
    }
    assert.ok(requestParams(rpc("SendMessage"), request(90)).ok);
  });

  it("bytes that are no message of the RPC are refused as not_json, naming the message", () => {
    const verdict = requestParams(rpc("GetTask"), Uint8Array.of(0xff, 0xff, 0xff));
    assert.equal(verdict.ok, false);
    if (!verdict.ok) {
      assert.equal(verdict.refusal.rule, "not_json");
      assert.match(verdict.refusal.words, /^expected a lf\.a2a\.v1\.GetTaskRequest message: /);
    }
  });
});

describe("gRPC answers: a kept text's bytes made once", () => {
  const task: Task = create(TaskSchema, { id: "t-1", contextId: "c-1", status: { state: TaskState.COMPLETED } });
  const text = JSON.stringify(toJson(TaskSchema, task));

  it("the bytes of a kept text are those of its ProtoJSON, made at the first answer and given again after", () => {
    const kept = new JsonText(text);
    const first = resultBytes(TaskSchema, kept);
    assert.deepEqual(first, answerBytes(TaskSchema, text));
    assert.equal(resultBytes(TaskSchema, kept), first, "the same bytes, not made again");
    assert.deepEqual(fromBinary(TaskSchema, first).id, "t-1");
  });

  it("an answer that is an object, or nothing, is converted at each call as before", () => {
    const value = JSON.parse(text);
    assert.deepEqual(resultBytes(TaskSchema, value), answerBytes(TaskSchema, text));
    assert.notEqual(resultBytes(TaskSchema, value), resultBytes(TaskSchema, value));
    assert.deepEqual(resultBytes(TaskSchema, undefined), answerBytes(TaskSchema, "{}"));
  });
});
