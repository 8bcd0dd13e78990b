// The one JSON-RPC handler of stdio and HTTP (src/jsonrpc/handler.ts), in-process over the methods of a fresh
// dispatcher: the batch's bounds, notifications, and the one difference between the bindings, `streamsAlone`.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, describe, it } from "node:test";
import { StreamReply } from "../../src/a2a/wire/stream-reply.js";
import { passGate } from "../../src/gate/request-gate.js";
import { type JsonRpcAnswer, JsonRpcHandler, MAX_BATCH } from "../../src/jsonrpc/handler.js";
import { memoryDispatcher, methodsOver } from "../helpers/methods.js";

const dispatcher = memoryDispatcher();
const { server: methods } = methodsOver(dispatcher);
after(() => dispatcher.shutdown());

const handlerOf = (streamsAlone: boolean) =>
  new JsonRpcHandler({ methods, maxAnswerBytes: 1024 * 1024, log: () => {}, streamsAlone });
const answer = (handler: JsonRpcHandler, body: unknown): Promise<JsonRpcAnswer> =>
  handler.answer(
    passGate({ shape: "jsonrpc", bytes: Buffer.from(JSON.stringify(body)), maxBytes: 1 << 24 }),
    () => ({}),
  );
/** A 0.3 stream of an echo task (a message without an envelope). */
const stream = (id?: number) => ({
  jsonrpc: "2.0",
  ...(id === undefined ? {} : { id }),
  method: "message/stream",
  params: { message: { role: "user", messageId: randomUUID(), parts: [{ kind: "text", text: "hi" }] } },
});
const card = (id?: number) => ({ jsonrpc: "2.0", ...(id === undefined ? {} : { id }), method: "agent/getCard" });
const textsOf = (answer: JsonRpcAnswer) => {
  assert.equal(answer.kind, "batch");
  return answer.kind === "batch"
    ? answer.texts.map((text) => JSON.parse(typeof text === "string" ? text : text().join("")))
    : [];
};
const errorOf = (answer: JsonRpcAnswer) => (answer.kind === "one" ? answer.response.error : undefined);

describe("the JSON-RPC handler", () => {
  it(`refuses an empty batch and one of more than ${MAX_BATCH} requests with one -32600`, async () => {
    const handler = handlerOf(false);
    assert.deepEqual(errorOf(await answer(handler, []))?.data, { detail: "expected a non-empty batch" });
    const tooMany = await answer(
      handler,
      Array.from({ length: MAX_BATCH + 1 }, (_, i) => card(i)),
    );
    assert.equal(errorOf(tooMany)?.code, -32600);
    assert.match(JSON.stringify(errorOf(tooMany)?.data), /at most 1000 requests in a batch, found 1001/);
  });

  it("answers nothing to notifications alone", async () => {
    assert.equal((await answer(handlerOf(false), card())).kind, "none");
    assert.equal((await answer(handlerOf(true), [card(), card()])).kind, "none");
  });

  it("streamsAlone (HTTP): a stream in a batch or without an id is -32600, and the others in the batch run", async () => {
    const handler = handlerOf(true);
    const [refused, served] = textsOf(await answer(handler, [stream(1), card(2)]));
    assert.equal(refused.error.code, -32600);
    assert.match(refused.error.data.detail, /message\/stream answers with a stream, which a batch cannot carry/);
    assert.equal(served.result.protocolVersion, "0.3.0");
    const noId = await answer(handler, stream());
    assert.match(JSON.stringify(errorOf(noId)?.data), /answers with a stream, so it needs an id/);
  });

  it("without streamsAlone (stdio): a stream in a batch is answered with its first item and handed on to follow", async () => {
    const answered = await answer(handlerOf(false), [stream(1), card(2)]);
    const [first, served] = textsOf(answered);
    assert.equal(first.id, 1);
    assert.equal(first.result.kind, "task");
    assert.equal(served.id, 2);
    assert.ok(answered.kind === "batch" && answered.written[0]?.result instanceof StreamReply);
    for (const response of answered.kind === "batch" ? answered.written : [])
      if (response.result instanceof StreamReply) response.result.close();
  });
});
