// The conformance suite's HTTP reading: SSE parsed as the spec of server-sent events says (CRLF, comments, `event`,
// `id`, multi-line data), a stop that disconnects, an answer that is not a stream, and the body limit.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { brief, readBounded, readSse } from "../../src/conformance/http.js";

describe("conformance: HTTP reading", () => {
  let server: Server;
  let base = "";
  let closedEarly = false;
  before(async () => {
    server = createServer((req, res) => {
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.write(': hello\r\nid: 1\r\ndata: {"a":1}\r\n\r\n');
        res.write("event: error\ndata: line one\ndata: line two\n\n");
        res.end("id: 3\ndata: last\n\n");
      } else if (req.url === "/endless") {
        res.writeHead(200, { "content-type": "text/event-stream" });
        let n = 0;
        const timer = setInterval(() => res.write(`data: ${n++}\n\n`), 5);
        res.on("close", () => {
          clearInterval(timer);
          closedEarly = true;
        });
      } else {
        res.writeHead(404, { "content-type": "application/json" });
        res.end('{"error":{"code":404}}');
      }
    });
    server.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it("reads events with their id and type, comments skipped, CRLF or LF", async () => {
    const read = await readSse(`${base}/stream`, {}, 5000);
    assert.deepEqual(read.events, [
      { event: "message", id: "1", data: '{"a":1}' },
      { event: "error", id: undefined, data: "line one\nline two" },
      { event: "message", id: "3", data: "last" },
    ]);
  });

  it("stops reading, and disconnects, when told", async () => {
    const read = await readSse(`${base}/endless`, {}, 5000, (_event, all) => all.length === 3);
    assert.deepEqual(
      read.events.map((event) => event.data),
      ["0", "1", "2"],
    );
    for (let i = 0; i < 100 && !closedEarly; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.ok(closedEarly, "the server saw the client go");
  });

  it("an answer that is not a stream comes back as text; a stream that does not end is cut at the deadline", async () => {
    const read = await readSse(`${base}/other`, {}, 5000);
    assert.equal(read.status, 404);
    assert.equal(read.text, '{"error":{"code":404}}');
    await assert.rejects(readSse(`${base}/endless`, {}, 200), /no end of the stream within 200 ms/);
  });

  it("a body over the limit is an error; brief escapes and cuts", async () => {
    await assert.rejects(readBounded(new Response("x".repeat(100)), 10), /larger than 10 bytes/);
    assert.equal(await readBounded(new Response("héllo")), "héllo");
    assert.equal(brief("\u001b[2J"), "\\u001b[2J");
    assert.equal(brief("y".repeat(20), 5), "yyyyy… (20 characters)");
  });
});
