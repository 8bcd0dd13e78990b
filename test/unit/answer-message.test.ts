// The message an answer comes in (CONTRACT section 4): a user message with parts, in the role spelling of the
// protocol family; anything else is invalid params (-32602 on the wire), before any answer check.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CoreError } from "../../src/core/errors.js";
import { answerMessageErrors, checkAnswerMessage } from "../../src/core/hitl/answer-message.js";

const answer = (fields: Record<string, unknown> = {}) => ({
  kind: "message",
  messageId: "m",
  role: "user",
  parts: [{ kind: "text", text: "y" }],
  taskId: "t",
  contextId: "c",
  metadata: { hitl_response_for: { prompt_id: "p", payload: { text: "y" } } },
  ...fields,
});
const paths = (message: unknown, role = "user") => answerMessageErrors(message, role).map((error) => error.path);

describe("answerMessageErrors", () => {
  it("accepts a user message with parts", () => {
    assert.deepEqual(answerMessageErrors(answer(), "user"), []);
    assert.deepEqual(answerMessageErrors(answer({ role: "ROLE_USER" }), "ROLE_USER"), []);
  });

  it("refuses another role, each family with its own spelling", () => {
    assert.deepEqual(paths(answer({ role: "agent" })), ["/message/role"]);
    assert.deepEqual(paths(answer({ role: "ROLE_USER" })), ["/message/role"]);
    assert.deepEqual(paths(answer({ role: "user" }), "ROLE_USER"), ["/message/role"]);
    assert.deepEqual(paths(answer({ role: "ROLE_AGENT" }), "ROLE_USER"), ["/message/role"]);
    assert.deepEqual(paths(answer({ role: "User" })), ["/message/role"]);
    assert.deepEqual(paths(answer({ role: undefined })), ["/message/role"]);
    const [error] = answerMessageErrors(answer({ role: "agent" }), "user");
    assert.deepEqual(error, {
      path: "/message/role",
      code: "invalid_value",
      message: 'expected "user" (an answer comes from the user), found "agent"',
    });
  });

  it("refuses a message without parts, with empty parts, or with parts that are not objects", () => {
    assert.deepEqual(answerMessageErrors(answer({ parts: undefined }), "user"), [
      {
        path: "/message/parts",
        code: "missing_field",
        message: 'missing required field "parts": expected an array of parts, found nothing',
      },
    ]);
    assert.deepEqual(paths(answer({ parts: [] })), ["/message/parts"]);
    assert.deepEqual(paths(answer({ parts: "y" })), ["/message/parts"]);
    assert.deepEqual(paths(answer({ parts: [{ kind: "text", text: "y" }, 5] })), ["/message/parts/1"]);
  });

  it("reports the role and the parts together", () => {
    assert.deepEqual(paths(answer({ role: "agent", parts: undefined })), ["/message/role", "/message/parts"]);
  });

  it("refuses a message that is not an object", () => {
    for (const message of [null, "y", [answer()], 1]) assert.deepEqual(paths(message), ["/message"]);
  });
});

describe("checkAnswerMessage", () => {
  it("passes a good answer", () => {
    checkAnswerMessage(answer(), "user");
  });

  it("throws invalid_params with every problem in data.errors", () => {
    assert.throws(
      () => checkAnswerMessage(answer({ role: "agent", parts: [] }), "user"),
      (error: unknown) => {
        assert.ok(error instanceof CoreError);
        assert.equal(error.code, "invalid_params");
        assert.equal(
          error.message,
          'Invalid params: expected "user" (an answer comes from the user), found "agent" at /message/role (and 1 more)',
        );
        assert.deepEqual(
          error.data.errors?.map((problem) => problem.path),
          ["/message/role", "/message/parts"],
        );
        return true;
      },
    );
  });
});
