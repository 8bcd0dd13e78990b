// A batch's answer within its bound (src/jsonrpc/bounded-answers.ts): entries in order, a few at a time; once the
// bound is passed, that entry and every later one get -32000 response_too_large, and entries not begun never run.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { JSONRPCResponse } from "json-rpc-2.0";
import { type AnswerText, answerBatch, answerJson, BATCH_CONCURRENCY } from "../../src/jsonrpc/bounded-answers.js";
import { JsonText, MAX_HELD_TEXT } from "../../src/operations/json-text.js";

const request = (id: number, method = "ListTasks") => ({ jsonrpc: "2.0", id, method, params: {} });
const result = (id: unknown, size: number): JSONRPCResponse => ({
  jsonrpc: "2.0",
  id: id as number,
  result: "x".repeat(size),
});
const idOf = (entry: unknown) => (entry as { id: number }).id;
const textOf = (text: AnswerText) => (typeof text === "string" ? text : text().join(""));

describe("answerBatch", () => {
  it("holds a large answer's result, not its JSON, and makes it again within the bytes it was counted at", async () => {
    const grows = { jsonrpc: "2.0", id: 2, result: "y".repeat(MAX_HELD_TEXT) } as JSONRPCResponse;
    const { texts } = await answerBatch(
      [request(0), request(1), request(2)],
      async (entry) => (idOf(entry) === 2 ? grows : result(idOf(entry), idOf(entry) === 0 ? 10 : MAX_HELD_TEXT)),
      { maxBytes: 10 * MAX_HELD_TEXT },
    );
    assert.equal(typeof texts[0], "string");
    assert.equal(typeof texts[1], "function");
    assert.equal(JSON.parse(textOf(texts[1] as AnswerText)).result.length, MAX_HELD_TEXT);
    // A result that grew between its count and its write is left out: the batch's bound holds.
    grows.result = "y".repeat(2 * MAX_HELD_TEXT);
    assert.equal(JSON.parse(textOf(texts[2] as AnswerText)).error.code, -32000);
  });

  it("holds no large JsonText's text between its count and its write, and writes it in pieces, never joined", async () => {
    let made = 0;
    const big = "z".repeat(4 * MAX_HELD_TEXT);
    const text = new JsonText(() => {
      made += 1;
      // A new string each time, as an encoder makes it.
      return JSON.stringify(`${big}${made}`);
    });
    const { texts } = await answerBatch(
      [request(0)],
      async () => ({ jsonrpc: "2.0", id: 0, result: text }) as JSONRPCResponse,
      { maxBytes: 10 * MAX_HELD_TEXT },
    );
    assert.equal(made, 1, "measured once");
    const pieces = (texts[0] as () => string[])();
    assert.equal(made, 2, "made again when written: the text was not held");
    assert.ok(pieces.length > 1);
    assert.ok(
      pieces.some((piece) => piece.length > 4 * MAX_HELD_TEXT),
      "the large text is one piece of its own",
    );
    assert.equal(JSON.parse(pieces.join("")).result, `${big}2`);
  });

  it("answers every entry while the bound holds", async () => {
    const entries = [1, 2, 3].map((id) => request(id));
    const { texts, written } = await answerBatch(entries, async (entry) => result(idOf(entry), 10), { maxBytes: 1000 });
    assert.deepEqual(
      texts.map((text) => JSON.parse(textOf(text)).result.length),
      [10, 10, 10],
    );
    assert.equal(written.length, 3);
  });

  it("past the bound: the entry that passes it is left out, the rest never run, in both families' shapes", async () => {
    const ran: number[] = [];
    const released: unknown[] = [];
    const entries = Array.from({ length: 40 }, (_, id) => request(id, id % 2 ? "tasks/list" : "ListTasks"));
    const { texts } = await answerBatch(
      entries,
      async (entry) => {
        ran.push(idOf(entry));
        return result(idOf(entry), 100);
      },
      { maxBytes: 300, release: (response) => released.push(response.id) },
    );
    const answers = texts.map((text) => JSON.parse(textOf(text)));
    assert.deepEqual(
      answers.map((answer) => answer.id),
      entries.map(idOf),
    );
    assert.equal(answers.filter((answer) => answer.result).length, 2, "two answers of ~140 bytes fit in 300");
    assert.deepEqual(released, ran.slice(2), "every answer made and left out is let go");
    assert.match(answers[2].error.message, /this request ran, but its answer would pass the limit/);
    assert.equal(answers[2].error.data[0].reason, "RESPONSE_TOO_LARGE", "1.0: an ErrorInfo");
    assert.equal(answers[3].error.data.reason, "response_too_large", "0.3: data.reason");
    for (const answer of answers.slice(2)) assert.equal(answer.error.code, -32000);
    assert.ok(ran.length <= 2 + BATCH_CONCURRENCY, `ran ${ran.length} of 40`);
    for (const id of ran.slice(2)) assert.match(answers[id].error.message, /this request ran/);
    assert.match(answers[39].error.message, /not run: /);
  });

  it("never runs more than BATCH_CONCURRENCY entries at once, and keeps notifications unanswered", async () => {
    let running = 0;
    let most = 0;
    const entries = Array.from({ length: 30 }, (_, id) =>
      id % 5 === 0 ? { jsonrpc: "2.0", method: "X" } : request(id),
    );
    const { texts } = await answerBatch(
      entries,
      async (entry) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return "id" in (entry as object) ? result(idOf(entry), 1) : null;
      },
      { maxBytes: 1_000_000 },
    );
    assert.equal(texts.length, 24);
    assert.ok(most <= BATCH_CONCURRENCY, `${most} at once`);
  });

  it("the answers written never pass the bound, whatever their sizes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.nat({ max: 500 }), { minLength: 1, maxLength: 60 }),
        fc.nat({ max: 5000 }),
        async (sizes, maxBytes) => {
          const entries = sizes.map((_, id) => request(id));
          const { texts, written } = await answerBatch(
            entries,
            async (entry) => result(idOf(entry), sizes[idOf(entry)] ?? 0),
            {
              maxBytes,
            },
          );
          assert.equal(texts.length, sizes.length);
          const writtenBytes = texts
            .filter((text) => JSON.parse(textOf(text)).result !== undefined)
            .reduce((sum, text) => sum + Buffer.byteLength(textOf(text)), 0);
          assert.ok(writtenBytes <= maxBytes);
          assert.equal(written.length, texts.filter((text) => JSON.parse(textOf(text)).result !== undefined).length);
        },
      ),
    );
  });

  it("a failing entry rejects the batch once every entry begun has settled", async () => {
    let settled = 0;
    const run = async (entry: unknown) => {
      if (idOf(entry) === 1) throw new Error("boom");
      await new Promise((resolve) => setImmediate(resolve));
      settled += 1;
      return result(idOf(entry), 1);
    };
    await assert.rejects(answerBatch([request(0), request(1), request(2)], run, { maxBytes: 1000 }), /boom/);
    assert.equal(settled, 2);
  });
});

describe("answerJson", () => {
  it("is the answer when it fits, and -32000 with the request's id when it does not", () => {
    assert.equal(answerJson(request(7), result(7, 3), { maxBytes: 100 }), '{"jsonrpc":"2.0","id":7,"result":"xxx"}');
    const refused = JSON.parse(answerJson(request(7), result(7, 300), { maxBytes: 100 }));
    assert.equal(refused.id, 7);
    assert.equal(refused.error.code, -32000);
    assert.match(refused.error.message, /expected an answer of at most 100 bytes, found more/);
  });
});
