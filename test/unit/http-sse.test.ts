// SSE answers (CONTRACT 8.4) of a hand-made stream reply: the framing, an error after the first item, a reader that
// goes away, and a reader that stops reading (each item is written before the next is pulled).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { request, type Server } from "node:http";
import { describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createAdaptorServer } from "@hono/node-server";
import { Hono } from "hono";
import type { Framing } from "../../src/a2a/wire/encode.js";
import { StreamReply } from "../../src/a2a/wire/stream-reply.js";
import { type SseOptions, STALLED_MS, sseAnswer } from "../../src/http/sse.js";

/** Holds the whole process up for `ms`, as a loaded machine may (a busy loop: nothing else runs meanwhile). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** Items are JSON texts, framed as they are. */
const asText = (item: string, frame: Framing) => `${frame.head}${item}${frame.tail}`;
const OPTIONS: SseOptions = {
  wrap: { head: "", tail: "" },
  errorData: (error) => JSON.stringify({ error: (error as Error).message }),
  keepAliveMs: 60_000,
  maxBehindBytes: 1024 * 1024,
};

/** A reply whose first item is `first` and whose items come from `next`; records whether it was closed. */
function replyOf(first: object, next: () => Promise<IteratorResult<string>>) {
  let close!: () => void;
  const closed = new Promise<void>((resolve) => (close = resolve));
  const items: AsyncIterator<string> = {
    next,
    return: async () => {
      close();
      return { done: true, value: undefined };
    },
  };
  return { reply: new StreamReply("t", first, items, asText, "1.0"), closed };
}

/** A reply of `items` (JSON texts, the first parsed as the answer) that throws at the `failAt`th pull. */
function source(items: string[], failAt?: number) {
  let pulled = 0;
  return replyOf(JSON.parse(items[0] as string), async () => {
    pulled += 1;
    if (pulled === failAt) throw new Error("broken");
    const item = items[pulled];
    return item === undefined ? { done: true, value: undefined } : { done: false, value: item };
  });
}

async function serve(reply: StreamReply<string>): Promise<{ server: Server; port: number }> {
  const app = new Hono().get("/s", (c) => sseAnswer(c, reply, OPTIONS));
  const server = createAdaptorServer({ fetch: app.fetch }) as Server;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as { port: number }).port };
}

describe("sseAnswer", () => {
  it("one `data:` event per item, in order, with the SSE headers; the answer ends with the items", async () => {
    const { reply } = source(['{"a":1}', '{"b":"x\\ny"}', '{"c":[]}']);
    const app = new Hono().get("/s", (c) => sseAnswer(c, reply, OPTIONS));
    const response = await app.request("/s");
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    assert.equal(response.headers.get("cache-control"), "no-cache");
    assert.equal(await response.text(), 'data: {"a":1}\n\ndata: {"b":"x\\ny"}\n\ndata: {"c":[]}\n\n');
  });

  it("an error after the first item: an `event: error` with the source's data, then the end", async () => {
    const { reply } = source(['{"a":1}', '{"b":2}', '{"c":3}'], 2);
    const app = new Hono().get("/s", (c) => sseAnswer(c, reply, OPTIONS));
    const text = await (await app.request("/s")).text();
    assert.equal(text, 'data: {"a":1}\n\ndata: {"b":2}\n\nevent: error\ndata: {"error":"broken"}\n\n');
  });

  it("written to node's response directly: the same bytes and headers as through Hono's SSE helper", async () => {
    const items = ['{"a":1}', '{"b":"x\\ny"}', '{"c":[]}'];
    const helper = new Hono().get("/s", (c) => sseAnswer(c, source(items).reply, OPTIONS));
    const viaHelper = await (await helper.request("/s")).text();
    for (const failAt of [undefined, 2]) {
      const { server, port } = await serve(source(items, failAt).reply);
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

  it("a reply whose reader fell too far behind: an `event: error` with that error's data, then the end (both ways)", {
    timeout: 10_000,
  }, async () => {
    const expected = 'data: {"a":1}\n\nevent: error\ndata: {"error":"slow"}\n\n';
    for (const direct of [false, true]) {
      let behind!: (error: Error) => void;
      // What a task's stream does once its reader is past the limit (CONTRACT 8.4): it tells, and the pull fails.
      const { reply } = replyOf({ a: 1 }, () => {
        const error = new Error("slow");
        behind(error);
        return Promise.reject(error);
      });
      Object.assign(reply, {
        failWhenBehind: (max: number) => {
          assert.equal(max, OPTIONS.maxBehindBytes);
          return new Promise((resolve) => (behind = resolve));
        },
      });
      if (!direct) {
        const app = new Hono().get("/s", (c) => sseAnswer(c, reply, OPTIONS));
        assert.equal(await (await app.request("/s")).text(), expected);
        continue;
      }
      const { server, port } = await serve(reply);
      try {
        assert.equal(await (await fetch(`http://127.0.0.1:${port}/s`)).text(), expected);
      } finally {
        server.close();
      }
    }
  });

  it("a reader whose socket takes nothing for STALLED_MS is told stalled; reading again un-stalls it", {
    timeout: 20_000,
  }, async () => {
    const big = JSON.stringify({ text: "x".repeat(256 * 1024) });
    const { reply } = replyOf(JSON.parse(big), async () => ({ done: false, value: big }));
    const told: boolean[] = [];
    let tell!: () => void;
    Object.assign(reply, {
      stalled: (stalled: boolean) => {
        told.push(stalled);
        tell();
      },
    });
    const next = () => new Promise<void>((resolve) => (tell = resolve));
    const { server, port } = await serve(reply);
    try {
      let toldStalled = next();
      const response = await new Promise<import("node:http").IncomingMessage>((resolve) => {
        request({ port, host: "127.0.0.1", path: "/s" }, resolve).end();
      });
      response.pause();
      await toldStalled;
      assert.deepEqual(told, [true]);
      toldStalled = next();
      response.resume();
      await toldStalled;
      assert.deepEqual(told, [true, false]);
      response.destroy();
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("a server held up for longer than STALLED_MS while its reader reads on does not take the reader for stalled", {
    timeout: 20_000,
  }, async () => {
    const item = JSON.stringify({ text: "x".repeat(256 * 1024) });
    let pulled = 0;
    const { reply } = replyOf(JSON.parse(item), async () => {
      pulled += 1;
      // Once the socket is full (the source is instant, so some write waits by the check phase), the whole process
      // is held up: the reader, in another process, empties the socket meanwhile.
      if (pulled === 20) setImmediate(() => busy(STALLED_MS * 1.5));
      return pulled > 100 ? { done: true, value: undefined } : { done: false, value: item };
    });
    const told: boolean[] = [];
    Object.assign(reply, { stalled: (stalled: boolean) => told.push(stalled) });
    const { server, port } = await serve(reply);
    try {
      const reader = spawn(
        process.execPath,
        [
          "-e",
          `require("node:http").get("http://127.0.0.1:${port}/s", (r) => r.resume().on("end", () => process.exit(0)))`,
        ],
        { stdio: "ignore" },
      );
      const [code] = await once(reader, "exit");
      assert.equal(code, 0);
      assert.equal(pulled, 101);
      assert.deepEqual(told, [], "the reader was never stalled");
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("a reader that goes away: the reply is closed", { timeout: 10_000 }, async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const { reply, closed } = replyOf({ a: 1 }, async () => {
      await held;
      return { done: true, value: undefined };
    });
    const { server, port } = await serve(reply);
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
      await closed; // else the test times out
    } finally {
      release();
      server.close();
    }
  });

  it("a reader that stops reading: items are pulled no faster than they are written", async () => {
    const big = JSON.stringify({ text: "x".repeat(256 * 1024) });
    let pulled = 0;
    const { reply } = replyOf(JSON.parse(big), async () => {
      pulled += 1;
      return pulled > 1000 ? { done: true, value: undefined } : { done: false, value: big };
    });
    const { server, port } = await serve(reply);
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
