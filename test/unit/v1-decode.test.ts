// 1.0 params into the service's requests (CONTRACT 7.1): a Part holds exactly one content (the proto's
// `oneof content`), and one that holds none or several is refused at its own pointer, naming what it found.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { sendRequestOf } from "../../src/a2a/v1_0/decode.js";
import { analyzeSend } from "../../src/core/envelope/envelope.js";
import { CoreError } from "../../src/core/errors.js";

const CONTENT = { text: "y", raw: "eQ==", url: "https://example.com/a.txt", data: { a: 1 } };
type Content = keyof typeof CONTENT;

const send = (parts: unknown[]) => ({ message: { messageId: "m-1", role: "ROLE_USER", parts } });

describe("1.0 Part contents", () => {
  it("a Part with exactly one of text, raw, url, data is taken; none or several is -32602 at its pointer", () => {
    const keys = Object.keys(CONTENT) as Content[];
    fc.assert(
      fc.property(fc.subarray(keys), fc.nat(3), (held, before) => {
        const part = Object.fromEntries(held.map((key) => [key, CONTENT[key]]));
        const parts = [...Array.from({ length: before }, () => ({ text: "ok" })), part];
        if (held.length === 1) {
          const request = sendRequestOf(send(parts));
          assert.equal(request.message.seen.parts?.length, before + 1);
          return;
        }
        assert.throws(
          () => sendRequestOf(send(parts)),
          (error: unknown) => {
            assert.ok(error instanceof CoreError);
            assert.equal(error.code, "invalid_params");
            const [problem] = error.data.errors ?? [];
            assert.equal(problem?.path, `/message/parts/${before}`);
            assert.match(problem?.message ?? "", /expected a Part with exactly one of text, raw, url, data/);
            assert.match(
              problem?.message ?? "",
              held.length === 0 ? /found none/ : new RegExp(`found ${held.join(" and ")}`),
            );
            return true;
          },
        );
      }),
    );
  });

  it("a Part's other fields (media_type, metadata) beside its one content are no second content", () => {
    assert.doesNotThrow(() => sendRequestOf(send([{ text: "y", media_type: "text/plain", metadata: { k: 1 } }])));
  });
});

describe("1.0 message problems", () => {
  const problemsOf = (message: unknown) => {
    const request = sendRequestOf({ message });
    return analyzeSend(request, request.problems);
  };

  it("a content of the wrong type is refused at 1.0's own field path, never at a 0.3 name (kind)", () => {
    const wrong = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.nat(), { maxLength: 2 }));
    fc.assert(
      fc.property(fc.constantFrom("text", "raw", "url"), wrong, fc.nat(3), (key, value, before) => {
        fc.pre(value !== null);
        const parts = [...Array.from({ length: before }, () => ({ text: "ok" })), { [key]: value }];
        const analysis = problemsOf({ messageId: "m-1", role: "ROLE_USER", parts });
        assert.equal(analysis.valid, false);
        const errors = analysis.valid ? [] : analysis.errors;
        assert.equal(errors[0]?.path, `/message/parts/${before}/${key}`);
        assert.equal(errors[0]?.code, "wrong_type");
        assert.ok(!errors.some((problem) => /kind/.test(problem.path) || /kind/.test(problem.message)));
      }),
    );
  });

  it("the role and a part's media type are refused in 1.0's words", () => {
    const agent = problemsOf({ role: "ROLE_AGENT", parts: [{ text: "y" }] });
    assert.deepEqual(agent.valid ? [] : agent.errors[0], {
      path: "/message/role",
      code: "invalid_value",
      message: 'expected "ROLE_USER" or "user", found "ROLE_AGENT"',
    });
    const mediaType = problemsOf({ role: "ROLE_USER", parts: [{ text: "y", media_type: 5 }] });
    assert.equal(mediaType.valid ? undefined : mediaType.errors[0]?.path, "/message/parts/0/mediaType");
  });
});

describe("a send's inline push config", () => {
  it("is decoded by the codec, so the service takes it decoded: snake_case names read, a bad field refused at its pointer", () => {
    const configuration = {
      task_push_notification_config: {
        url: "https://example.com/hook",
        token: "t",
        authentication: { scheme: "Bearer" },
      },
    };
    const request = sendRequestOf({ ...send([{ text: "y" }]), configuration });
    assert.deepEqual(request.push, {
      config: { url: "https://example.com/hook", token: "t", authentication: { scheme: "Bearer" } },
      family: "1.0",
      path: "/configuration/taskPushNotificationConfig",
    });
    const bad = { taskPushNotificationConfig: { url: "https://example.com/hook", token: "a\r\nb" } };
    assert.throws(
      () => sendRequestOf({ ...send([{ text: "y" }]), configuration: bad }),
      (error) =>
        error instanceof CoreError &&
        error.code === "invalid_params" &&
        error.data.errors?.[0]?.path === "/configuration/taskPushNotificationConfig/token",
    );
  });
});
