// SSE answers (CONTRACT 8.4) from a hand-made source: the framing, an error after the first item, a reader that
// goes away, and a reader that stops reading (each item is written before the next is pulled).
import assert from "node:assert/strict";
import { request, type Server } from "node:http";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import { type SseSource, sseAnswer } from "../../src/http/sse.js";

/** A source of `items` (JSON texts) that records what was pulled and whether it was closed; throws at `failAt`. */
function source(items: string[], failAt?: number) {
  const state = { pulled: 0, closed: false };
  const src: SseSource = {
    first: items[0] as string,
    next: async (head, tail) => {
      state.pulled += 1;
      if (state.pulled === failAt) throw new Error("broken");
      const item = items[state.pulled];
      return item === undefined ? undefined : `${head}${item}${tail}`;
    },
    close: () => {
      state.closed = true;
    },
    errorData: (error) => JSON.stringify({ error: (error as Error).message }),
  };
  return { src, state };
}

async function serve(src: SseSource): Promise<{ server: Server; port: number }> {
  const app = new Hono().get("/s", (c) => sseAnswer(c, src, 60_000));
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe("sseAnswer", () => {
  it("one `data:` event per item, in order, with the SSE headers; the answer ends with the items", async () => {
    const { src } = source(['{"a":1}', '{"b":"x\\ny"}', '{"c":[]}']);
    const app = new Hono().get("/s", (c) => sseAnswer(c, src));
    const response = await app.request("/s");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("cache-control"), "no-cache");
    assert.equal(await response.text(), 'data: {"a":1}\n\ndata: {"b":"x\\ny"}\n\ndata: {"c":[]}\n\n');
  });

  it("an error after the first item: an `event: error` with the source's data, then the end", async () => {
    const { src } = source(['{"a":1}', '{"b":2}', '{"c":3}'], 2);
    const app = new Hono().get("/s", (c) => sseAnswer(c, src));
    const text = await (await app.request("/s")).text();
    assert.equal(text, 'data: {"a":1}\n\ndata: {"b":2}\n\nevent: error\ndata: {"error":"broken"}\n\n');
  });

  it("written to node's response directly: the same bytes and headers as through Hono's SSE helper", async () => {
    const items = ['{"a":1}', '{"b":"x\\ny"}', '{"c":[]}'];
    const viaHelper = await (await new Hono().get("/s", (c) => sseAnswer(c, source(items).src)).request("/s")).text();
    for (const failAt of [undefined, 2]) {
      const { server, port } = await serve(source(items, failAt).src);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/s`);
        assert.equal(response.headers.get("content-type"), "text/event-stream");
        assert.equal(response.headers.get("cache-control"), "no-cache");
        const text = await response.text();
        if (failAt === undefined) assert.equal(text, viaHelper);
        else assert.equal(text, 'data: {"a":1}\n\ndata: {"b":"x\\ny"}\n\nevent: error\ndata: {"error":"broken"}\n\n');
      } finally {
        server.close();
      }
    }
  });

  it("a reader that goes away: the source is closed", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { src, state } = source(['{"a":1}']);
    src.next = async () => {
      await held;
      return undefined;
    };
    const { server, port } = await serve(src);
    try {
      await new Promise<void>((resolve) => {
        const req = request({ port, host: "127.0.0.1", path: "/s" }, (response) => {
          response.once("data", () => {
            response.destroy();
            resolve();
          });
        });
        req.end();
      });
      for (let i = 0; i < 40 && !state.closed; i++) await sleep(25);
      assert.ok(state.closed, "the source was closed when the reader left");
    } finally {
      release();
      server.close();
    }
  });

  it("a reader that stops reading: items are pulled no faster than they are written", async () => {
    const big = JSON.stringify({ text: "x".repeat(256 * 1024) });
    let pulled = 0;
    const src: SseSource = {
      first: big,
      next: async () => {
        pulled += 1;
        return pulled > 1000 ? undefined : big;
      },
      close: () => {},
      errorData: () => "{}",
    };
    const { server, port } = await serve(src);
    try {
      const response = await new Promise<import("node:http").IncomingMessage>((resolve) => {
        request({ port, host: "127.0.0.1", path: "/s" }, resolve).end();
      });
      response.pause();
      await sleep(500);
      // 1000 items would be 256 MiB; unread, only what the socket buffers and a few items in flight are pulled.
      assert.ok(pulled < 100, `${pulled} items pulled while nobody read`);
      response.destroy();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });
});
