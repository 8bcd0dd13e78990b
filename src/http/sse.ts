// A stream as Server-Sent Events (CONTRACT 8.4), on Hono's SSE helper: one `data:` event per item, each written
// before the next is pulled, so a client that stops reading holds its task's output at the task stream's mark
// instead of filling memory; a comment while idle keeps proxies and clients from timing out; a client that goes
// away stops the following (the task goes on).
import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { JsonText } from "../a2a/text-json.js";
import { wireEncoding } from "../io/wire-encoding.js";
import type { StreamReply } from "../jsonrpc/stream-reply.js";

/** What an SSE answer sends: items as JSON text. */
export interface SseSource {
  /** The first item (the request's answer already exists when the stream starts). */
  first: string;
  /**
   * The next item between `head` and `tail` (the SSE framing), or undefined once the stream is over: the frame is
   * made in one piece with the item, so that an item made as bytes is not copied again.
   */
  next(head: string, tail: string): Promise<JsonText | undefined>;
  /** The client went away: stop following. */
  close(): void;
  /** The data of the `event: error` that ends a stream that failed after its first item. */
  errorData(error: unknown): string;
}

export const KEEP_ALIVE_MS = 15_000;

export function sseAnswer(c: Context, source: SseSource, keepAliveMs = KEEP_ALIVE_MS): Response {
  return streamSSE(c, async (stream) => {
    let writing = false;
    const write = async (text: JsonText) => {
      writing = true;
      // Bytes made here: ASCII (the usual output) is copied as it is, where Hono's TextEncoder would encode it
      // character by character.
      await stream.write(typeof text === "string" ? Buffer.from(text, wireEncoding(text)) : text);
      writing = false;
      idle.refresh();
    };
    // A write still waiting for the client is left alone: comments must not pile up behind it.
    const idle = setTimeout(function keepAlive() {
      if (!writing && !stream.aborted) void write(": keep-alive\n\n");
      else idle.refresh();
    }, keepAliveMs);
    stream.onAbort(() => source.close());
    try {
      await write(`data: ${source.first}\n\n`);
      for (;;) {
        let item: JsonText | undefined;
        try {
          item = await source.next("data: ", "\n\n");
        } catch (error) {
          if (!stream.aborted) await write(`event: error\ndata: ${source.errorData(error)}\n\n`);
          break;
        }
        if (item === undefined || stream.aborted) break;
        await write(item);
      }
    } finally {
      clearTimeout(idle);
      if (stream.aborted) source.close();
    }
  });
}

/** The items of a stream reply, each item's JSON text between `wrap`'s two parts (the JSON-RPC envelope, or none). */
export function replySource(
  reply: StreamReply,
  wrap: { head: string; tail: string },
  errorData: (error: unknown) => string,
): SseSource {
  return {
    first: `${wrap.head}${JSON.stringify(reply.first)}${wrap.tail}`,
    next: async (head, tail) => {
      const step = await reply.rest.next();
      return step.done ? undefined : reply.encode(step.value, `${head}${wrap.head}`, `${wrap.tail}${tail}`);
    },
    close: () => reply.close(),
    errorData,
  };
}
