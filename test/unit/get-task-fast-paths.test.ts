// The short ways a GetTask takes over HTTP (docs/benchmarks.md, "Where the cost is") give what the long ways gave:
// headers read from node's parse equal Hono's reads, also for repeated and odd headers; the token check passes and
// refuses exactly what Hono's bearerAuth did, in its words; a kept answer is the text jsonPiecesWithin writes, within
// the same bound; id-only get params decode as the schema decodes them.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { createAdaptorServer } from "@hono/node-server";
import fc from "fast-check";
import { Hono } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import type { JSONRPCResponse } from "json-rpc-2.0";
import { getRequestOf } from "../../src/a2a/decode.js";
import { getRequest10 } from "../../src/a2a/v1_0/decode.js";
import { bearer } from "../../src/http/auth.js";
import { headerOf } from "../../src/http/request-headers.js";
import { answerPieces } from "../../src/jsonrpc/bounded-answers.js";
import { JsonRpcHandler } from "../../src/jsonrpc/handler.js";
import { JsonText } from "../../src/operations/json-text.js";
import { idOnly } from "../../src/operations/table.js";
import { memoryDispatcher, methodsOver } from "../helpers/methods.js";

const NAMES = ["host", "origin", "authorization", "content-type", "content-length", "a2a-version", "a2a-extensions"];

describe("request headers from node's parse", () => {
  const app = new Hono();
  app.all("*", (c) => c.json(NAMES.map((name) => [headerOf(c, name) ?? null, c.req.header(name) ?? null])));
  const server = createAdaptorServer({ fetch: app.fetch });
  let port = 0;
  before(() => new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve())));
  before(() => {
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The pairs [ours, Hono's] of each name, for a request with these header lines. */
  const readBoth = (lines: string[]) =>
    new Promise<[string | null, string | null][]>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1");
      let text = "";
      socket.on("data", (chunk) => {
        text += chunk;
      });
      socket.on("end", () => {
        resolve(JSON.parse(text.slice(text.indexOf("\r\n\r\n") + 4)));
      });
      socket.on("error", reject);
      socket.end(["GET / HTTP/1.1", ...lines, "Connection: close", "", ""].join("\r\n"));
    });

  it("are Hono's values, with names repeated, in other cases, or with spaces around them", async () => {
    const requests = [
      ["Host: 127.0.0.1:1"],
      ["Host: 127.0.0.1:1", "Host: evil.example"],
      ["Host: 127.0.0.1:1", "HOST: 127.0.0.1:1"],
      ["Host: 127.0.0.1:1", "Origin: http://a.example", "origin: http://b.example"],
      ["Host: 127.0.0.1:1", "Authorization: Bearer a", "Authorization: Bearer b"],
      ["Host: 127.0.0.1:1", "Content-Type:   application/json  ", "A2A-Version:\t1.0 "],
      ["Host: 127.0.0.1:1", "Content-Type: text/plain", "content-type: application/json"],
      ["Host: 127.0.0.1:1", "A2A-Extensions: x", "A2A-Extensions: y", "Authorization: Bearer t"],
      ["Host: 127.0.0.1:1", "Authorization:"],
    ];
    for (const lines of requests)
      for (const [ours, hono] of await readBoth(lines)) assert.equal(ours, hono, JSON.stringify(lines));
  });
});

// The second token holds a character bearerAuth never reads as a token's: it was refused whatever was sent.
for (const TOKEN of ["s3cret-Token_0.9~+/==", "s3cret!"])
  describe(`the token check (${TOKEN})`, () => {
    const ours = new Hono();
    ours.use("*", bearer(TOKEN));
    ours.get("*", (c) => c.text("ok"));
    // What the check was: Hono's bearerAuth with the same words.
    const theirs = new Hono();
    theirs.use(
      "*",
      bearerAuth({
        verifyToken: (presented) => presented === TOKEN,
        noAuthenticationHeader: { message: () => new Response("missing", { status: 401 }) },
        invalidAuthenticationHeader: { message: () => new Response("not bearer", { status: 401 }) },
        invalidToken: { message: () => new Response("invalid", { status: 401 }) },
      }),
    );
    theirs.get("*", (c) => c.text("ok"));
    const outcome = async (app: Hono, header: string | undefined) => {
      const response = await app.request("/", header === undefined ? {} : { headers: { Authorization: header } });
      return { status: response.status, challenge: response.headers.get("www-authenticate") };
    };
    const piece = fc.constantFrom(
      "Bearer",
      "bearer",
      "BEARER",
      "Basic",
      " ",
      "  ",
      "\t",
      TOKEN,
      `${TOKEN}x`,
      "a b",
      "=",
      "é",
      "abc",
    );

    it("passes and refuses what bearerAuth passed and refused, with its challenge", async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(piece, { maxLength: 4 }), async (pieces) => {
          const header = pieces.join("").trim();
          const [mine, before] = [await outcome(ours, header), await outcome(theirs, header)];
          assert.equal(mine.status, before.status, header);
          assert.equal(mine.challenge, before.challenge, header);
        }),
        { numRuns: 300 },
      );
      assert.equal((await outcome(ours, undefined)).challenge, 'Bearer realm=""');
      const right = TOKEN.endsWith("!") ? 401 : 200;
      assert.equal((await outcome(ours, `Bearer ${TOKEN}`)).status, right);
      assert.equal((await outcome(ours, `bearer    ${TOKEN}`)).status, right);
    });
  });

describe("a kept answer", () => {
  const dispatcher = memoryDispatcher();
  after(() => dispatcher.shutdown());
  const handler = (maxAnswerBytes: number) =>
    new JsonRpcHandler({ methods: methodsOver(dispatcher).server, maxAnswerBytes, log: () => {}, streamsAlone: true });

  it("is the text the answer's walk writes, and past the same bound", () => {
    const id = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.constant(null),
    );
    fc.assert(
      fc.property(id, fc.jsonValue(), fc.integer({ min: -40, max: 40 }), (requestId, value, slack) => {
        const text = JSON.stringify(value);
        const response = { jsonrpc: "2.0", id: requestId, result: new JsonText(text) } as JSONRPCResponse;
        const walked = answerPieces({ id: requestId }, response, { maxBytes: 1 << 30 }).join("");
        const maxBytes = Math.max(1, Buffer.byteLength(walked) + slack);
        const expected = answerPieces({ id: requestId }, response, { maxBytes }).join("");
        assert.equal(handler(maxBytes).pieces({ id: requestId }, response).join(""), expected);
      }),
      { numRuns: 300 },
    );
  });
});

describe("id-only get params", () => {
  it("decode as the schema decodes them, and any other params take the schema's way", () => {
    const params = fc.oneof(
      fc.record({ id: fc.string() }),
      fc.dictionary(fc.constantFrom("id", "historyLength", "history_length", "x"), fc.jsonValue()),
      fc.jsonValue(),
    );
    fc.assert(
      fc.property(params, (given) => {
        const fast = idOnly(given);
        if (fast === undefined) return;
        assert.deepEqual(fast, getRequest10(given));
        assert.deepEqual(fast, getRequestOf(given));
      }),
      { numRuns: 500 },
    );
    assert.deepEqual(idOnly({ id: "t" }), { id: "t" });
    assert.equal(idOnly({ id: "t", historyLength: 1 }), undefined);
    assert.equal(idOnly({ id: 5 }), undefined);
    assert.equal(idOnly(Object.assign(Object.create({ inherited: 1 }), { id: "t" }))?.id, "t");
  });
});
