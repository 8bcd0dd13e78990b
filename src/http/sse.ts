// A stream as Server-Sent Events (CONTRACT 8.4): one `data:` event per item, each written before the next is pulled.
// A client that reads, however slowly, gets every byte: its stream holds the task's output at the pipe. One whose
// socket has taken nothing for `STALLED_MS` no longer holds the task back: its stream keeps up to `maxBehindBytes` of
// output, then ends with an `event: error` (SLOW_CONSUMER). A comment while idle keeps proxies and clients from
// timing out; a client that goes away stops the following (the task goes on).
import type { ServerResponse } from "node:http";
import type { HttpBindings } from "@hono/node-server";
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { Framing, WireJson } from "../a2a/wire/encode.js";
import type { StreamReply } from "../a2a/wire/stream-reply.js";
import { drainOrClose } from "../io/backpressure.js";
import { wireEncoding } from "../io/wire-encoding.js";

/** How a stream reply goes out as SSE on one route. */
export interface SseOptions {
  /** Around each item's JSON inside its `data:` line: the JSON-RPC response with the request's id, or nothing. */
  wrap: Framing;
  /** The data of the `event: error` that ends a stream that failed after its first item. */
  errorData(error: unknown): string;
  keepAliveMs?: number | undefined;
  /** The output a client may fall behind before its stream ends (--max-output-bytes). */
  maxBehindBytes: number;
}

const KEEP_ALIVE_MS = 15_000;

/** How long a write may wait for the client before the client counts as stalled (and holds the task no longer). */
export const STALLED_MS = 1000;

/** How much longer a write that waited STALLED_MS is watched before its client counts as stalled. */
const STALL_CHECK_MS = 250;

/** How long the last event of a stream ended for a slow client may wait for it to read, before the connection goes. */
const SLOW_CLIENT_GRACE_MS = 15_000;

/** Where an SSE answer's bytes go: Hono's SSE stream, or node's response itself. */
interface SseSink {
  /** Undefined when the text or bytes were taken at once, else a promise that resolves once they are. */
  write(chunk: WireJson): Promise<unknown> | undefined;
  /** The stream's last text, for a client that has stopped reading: not waited for, and not for long. */
  last(chunk: WireJson): void;
  readonly aborted: boolean;
  onAbort(listener: () => void): void;
}

/**
 * Under `@hono/node-server`, the events are written to node's response directly, once the head (with every header the
 * middleware set) has gone out through Hono: a web stream between the events and the socket cost about 0.8 ms of CPU
 * per MiB, about a quarter of the whole SSE path for large output (docs/benchmarks.md). Elsewhere (Hono's own tests, other
 * runtimes) they go through Hono's SSE helper.
 */
export function sseAnswer<Item>(c: Context, reply: StreamReply<Item>, options: SseOptions): Response {
  const outgoing = (c.env as Partial<HttpBindings> | undefined)?.outgoing;
  if (outgoing === undefined)
    return streamSSE(c, (stream) =>
      sendEvents(Object.assign(stream, { last: (chunk: WireJson) => void stream.write(chunk) }), reply, options),
    );
  let sink: ResponseSink | undefined;
  // Read once node-server has written the head: the events then go straight to `outgoing`, and the stream closes
  // (which ends the response) when they are over.
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        sink = new ResponseSink(outgoing);
        await sendEvents(sink, reply, options);
        controller.close();
      },
      cancel: () => sink?.abort(),
    },
    { highWaterMark: 0 },
  );
  return c.body(body, 200, SSE_HEADERS);
}

/** The headers Hono's SSE helper sets. */
const SSE_HEADERS = {
  "Transfer-Encoding": "chunked",
  "Content-Type": "text/event-stream",
  "Cache-Control": "no-cache",
  Connection: "keep-alive",
};

/**
 * Node's response as an SSE sink: a write waits for `drain` when the socket is full. Text goes to the socket as it is
 * (ASCII as Latin-1, the same bytes as UTF-8), without a Buffer made for it on the way (docs/benchmarks.md).
 */
class ResponseSink implements SseSink {
  aborted = false;
  private readonly listeners: Array<() => void> = [];

  constructor(private readonly outgoing: ServerResponse) {
    outgoing.once("close", () => this.abort());
  }

  write(chunk: WireJson): Promise<void> | undefined {
    if (this.outgoing.destroyed) this.abort();
    if (this.aborted || this.send(chunk)) return undefined;
    return drainOrClose(this.outgoing);
  }

  last(chunk: WireJson): void {
    if (this.outgoing.destroyed || this.aborted) return;
    this.send(chunk);
    const outgoing = this.outgoing;
    const grace = setTimeout(() => outgoing.destroy(), SLOW_CLIENT_GRACE_MS);
    grace.unref();
    outgoing.once("close", () => clearTimeout(grace));
  }

  private send(chunk: WireJson): boolean {
    return typeof chunk === "string" ? this.outgoing.write(chunk, wireEncoding(chunk)) : this.outgoing.write(chunk);
  }

  onAbort(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** The client went away (or the server stopped reading the body): told once. */
  abort(): void {
    if (this.aborted || this.outgoing.writableEnded) return;
    this.aborted = true;
    for (const listener of this.listeners.splice(0)) listener();
  }
}

/** The items of `reply`, one `data:` event each, each written before the next is pulled, with a comment while idle. */
async function sendEvents<Item>(sink: SseSink, reply: StreamReply<Item>, options: SseOptions): Promise<void> {
  const { wrap } = options;
  const frame: Framing = { head: `data: ${wrap.head}`, tail: `${wrap.tail}\n\n` };
  let writing = false;
  /** Counts the writes that had to wait, so that a later check knows whether the same one still waits. */
  let waits = 0;
  // Set once the client is too far behind (the task's stream then rejects the next pull with the same error); a
  // write it is stuck in is woken and given up. No race against a promise that may never settle: each would stay.
  let slow: { error: unknown } | undefined;
  const wakers = new Set<() => void>();
  void reply.failWhenBehind(options.maxBehindBytes).then((error) => {
    slow = { error };
    for (const wake of wakers) wake();
  });
  let stalled = false;
  const write = async (text: WireJson) => {
    const taking = sink.write(text);
    if (taking) {
      writing = true;
      waits += 1;
      stall.refresh();
      let wake!: () => void;
      await new Promise<void>((resolve) => {
        wake = resolve;
        wakers.add(wake);
        void taking.then(() => resolve());
      });
      wakers.delete(wake);
      writing = false;
      if (stalled) {
        stalled = false;
        reply.stalled(false);
      }
    }
    idle.refresh();
  };
  // Fires STALLED_MS after the latest write that had to wait: if that write still waits STALL_CHECK_MS later, the
  // client is stalled. The second look is for a server that was itself held up (a loaded machine): it first takes in
  // the drains its client gave meanwhile.
  const stall = setTimeout(() => {
    if (!writing || stalled) return;
    const wait = waits;
    setTimeout(() => {
      if (!writing || wait !== waits || stalled || sink.aborted) return;
      stalled = true;
      reply.stalled(true);
    }, STALL_CHECK_MS).unref();
  }, STALLED_MS);
  // A write still waiting for the client is left alone: comments must not pile up behind it.
  const idle = setTimeout(function keepAlive() {
    if (!writing && !sink.aborted) void write(": keep-alive\n\n");
    else idle.refresh();
  }, options.keepAliveMs ?? KEEP_ALIVE_MS);
  sink.onAbort(() => reply.close());
  let failed = false;
  const fail = (error: unknown) => {
    if (failed || sink.aborted) return;
    failed = true;
    sink.last(`event: error\ndata: ${options.errorData(error)}\n\n`);
  };
  try {
    await write(`${idLine(reply.firstNumber)}${frame.head}${JSON.stringify(reply.first)}${frame.tail}`);
    while (!slow) {
      let item: WireJson | undefined;
      try {
        item = await reply.next(frame, idLine);
      } catch (error) {
        fail(error);
        break;
      }
      if (item === undefined || sink.aborted) break;
      await write(item);
    }
    if (slow) fail(slow.error);
  } finally {
    clearTimeout(idle);
    clearTimeout(stall);
    if (sink.aborted) reply.close();
  }
}

/** The `id:` line of an event that has a number (CONTRACT 8.4, 9.4): the one place it is written. */
function idLine(id: number | undefined): string {
  return id === undefined ? "" : `id: ${id}\n`;
}
