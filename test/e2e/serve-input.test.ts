// `serve --stdio` refuses what section 2 refuses, with -32602 and no task: near-miss extension keys and start
// limits (the same analysis as validate and run), and a request that repeats a key (the request gate).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { echoParams, envelopeParams } from "../helpers/envelopes.js";
import { assertErrorV1 } from "../helpers/v1-errors.js";
import type { Wire } from "../helpers/wire.js";

const URI_TOKEN = ADAPTER_URI.replaceAll("/", "~1");

/** A bridge for the describe block this is called in, started before its tests and closed after them. */
function bridgeOfBlock(): RpcBridge {
  const bridge = startBridge();
  before(() => bridge.ready());
  after(() => bridge.close());
  return bridge;
}

describe("serve --stdio: input refused by section 2", () => {
  const bridge = bridgeOfBlock();

  const noTasks = async () => {
    const { tasks } = await bridge.call("tasks/list", {});
    assert.deepEqual(tasks, [], "no task was created");
  };

  /** The params of `envelopeParams("ok")` with the envelope moved under `key`. */
  const underKey = (key: string): Wire => {
    const params = envelopeParams("ok") as Wire;
    params.message.metadata = { [key]: params.message.metadata[ADAPTER_URI] };
    return params;
  };

  for (const key of [`${ADAPTER_URI}/`, ADAPTER_URI.replace("https:", "http:"), ADAPTER_URI.replace(/v1$/, "v2")]) {
    it(`message/send with the envelope under ${key}: -32602 envelope_key_mismatch, not an echo`, async () => {
      const error = await bridge.callError("message/send", underKey(key));
      assert.equal(error.code, -32602);
      assert.match(error.message, /^adapter-command\/v1 rejected:/);
      assert.deepEqual(
        error.data.errors.map((e: Wire) => e.code),
        ["envelope_key_mismatch"],
      );
      await noTasks();
    });
  }

  const withText = (text: string | string[]) => {
    const params = envelopeParams("ok") as Wire;
    params.message.parts = [text].flat().map((t) => ({ kind: "text", text: t }));
    return params;
  };
  const LIMITS: Array<[string, Wire, string]> = [
    ["a text part with a NUL", withText("a\u0000b"), "message_nul"],
    ["a joined text over 64 KiB", withText(["x".repeat(40_000), "y".repeat(40_000)]), "message_too_large"],
    ["1001 parts", withText(Array(1001).fill("x")), "too_many_parts"],
  ];
  for (const [name, params, code] of LIMITS) {
    it(`message/stream with ${name}: -32602 ${code}`, async () => {
      const error = await bridge.callError("message/stream", params);
      assert.equal(error.code, -32602);
      assert.ok(
        error.data.errors.some((e: Wire) => e.code === code),
        JSON.stringify(error.data),
      );
      await noTasks();
    });
  }
});

describe("serve --stdio: a send request whose params repeat a key", () => {
  const bridge = bridgeOfBlock();

  const ENVELOPE = JSON.stringify((envelopeParams("ok") as Wire).message.metadata[ADAPTER_URI]);
  const HIDDEN = `{"adapter":"sandbox-agent-runner","mode":"assess","command":[]}`;
  /** A message whose metadata names the extension twice: the first envelope hidden behind the second. */
  const messageText = `{"kind":"message","messageId":"m-dup","role":"user","parts":[{"kind":"text","text":"x"}],"metadata":{"${ADAPTER_URI}":${HIDDEN},"${ADAPTER_URI}":${ENVELOPE}}}`;
  const request = (id: string, method: string, params: string) =>
    `{"jsonrpc":"2.0","id":"${id}","method":"${method}","params":${params}}`;

  /** -32602 duplicate_key at `path`: 0.3 names carry `data.errors`, 1.0 names a BadRequest (CONTRACT 7.5). */
  const rejectedAt = (response: Wire, id: string, path: string, family: "0.3" | "1.0" = "0.3") => {
    assert.equal(response.id, id);
    assert.equal(response.error?.code, -32602, JSON.stringify(response));
    const problems =
      family === "0.3"
        ? response.error.data.errors.map((e: Wire) => [e.path, e.code])
        : (assertErrorV1(response.error, -32602, "INVALID_PARAMS").violations ?? []).map((v) => [v.field, v.reason]);
    assert.deepEqual(problems, [[path, "duplicate_key"]]);
  };

  for (const method of ["message/send", "message/stream", "SendMessage", "SendStreamingMessage"]) {
    it(`${method}: -32602 duplicate_key at its pointer under /message`, async () => {
      bridge.sendLine(request(`dup-${method}`, method, `{"message":${messageText}}`));
      const family = method.includes("/") ? "0.3" : "1.0";
      rejectedAt(await bridge.nextRawResponse(), `dup-${method}`, `/message/metadata/${URI_TOKEN}`, family);
      const { tasks } = await bridge.call("tasks/list", {});
      assert.deepEqual(tasks, []);
    });
  }

  it("a repeated key deep in the message, and params written twice, are refused too", async () => {
    const deep = JSON.stringify(echoParams("x")).replace('"role":"user"', '"role":"user","role":"user"');
    bridge.sendLine(request("dup-deep", "message/send", deep));
    rejectedAt(await bridge.nextRawResponse(), "dup-deep", "/message/role");
    const twice = `{"jsonrpc":"2.0","id":"dup-params","method":"message/send","params":${JSON.stringify(echoParams("a"))},"params":${JSON.stringify(echoParams("b"))}}`;
    bridge.sendLine(twice);
    rejectedAt(await bridge.nextRawResponse(), "dup-params", "");
  });

  it("in a batch only the send that repeats a key is refused; the other requests are answered", async () => {
    bridge.sendLine(
      `[${request("b-dup", "message/send", `{"message":${messageText}}`)},${request("b-ok", "message/send", JSON.stringify(echoParams("fine")))}]`,
    );
    const answers = (await bridge.nextRawResponse()) as Wire[];
    const byId = new Map(answers.map((answer) => [answer.id, answer]));
    rejectedAt(byId.get("b-dup"), "b-dup", `/message/metadata/${URI_TOKEN}`);
    assert.equal(byId.get("b-ok")?.result?.status?.state, "completed", JSON.stringify(byId.get("b-ok")));
  });

  it("every method is read for repeated keys: a tasks/get naming its id twice is refused, not guessed", async () => {
    bridge.sendLine('{"jsonrpc":"2.0","id":"get-dup","method":"tasks/get","params":{"id":"a","id":"nope"}}');
    rejectedAt(await bridge.nextRawResponse(), "get-dup", "/id");
  });

  it("a key repeated beside the params (the method written twice) is -32600", async () => {
    bridge.sendLine('{"jsonrpc":"2.0","id":"m-dup","method":"tasks/get","method":"tasks/list","params":{}}');
    const response = await bridge.nextRawResponse();
    assert.equal(response.id, "m-dup");
    assert.equal(response.error?.code, -32600, JSON.stringify(response));
    assert.match(response.error.data.detail, /found "method" again at \/method/);
  });
});
