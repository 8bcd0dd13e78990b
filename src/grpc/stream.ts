// A stream's items as the messages of one server-streaming call (SendStreamingMessage, SubscribeToTask), each written
// before the next is pulled. As on SSE (CONTRACT 8.4): a client that has taken nothing for STALLED_MS no longer holds
// the task back, and one more than `maxBehindBytes` of output behind has its stream ended with RESOURCE_EXHAUSTED
// (SLOW_CONSUMER). A client that goes away stops the following, never the task.
import type { ServerWritableStream } from "@grpc/grpc-js";
import type { StreamReply } from "../a2a/wire/stream-reply.js";
import { STALLED_MS } from "../http/sse.js";
import { drainOrClose } from "../io/backpressure.js";

/** An item as JSON with nothing around it: the codec reads it as one StreamResponse. */
const BARE = { head: "", tail: "" };

export interface StreamOptions<Status> {
  maxBehindBytes: number;
  /** A StreamResponse's ProtoJSON as its bytes. */
  encode(json: string): Buffer;
  /** The status that ends the call for an error of the stream. */
  failed(error: unknown): Status;
}

export async function sendStream<Item, Status>(
  call: ServerWritableStream<Buffer, Buffer>,
  reply: StreamReply<Item>,
  options: StreamOptions<Status>,
): Promise<void> {
  let gone = false;
  const wakers = new Set<() => void>();
  const goneNow = () => {
    gone = true;
    reply.close();
    for (const wake of wakers) wake();
  };
  call.on("cancelled", goneNow);
  call.on("close", goneNow);
  let slow: { error: unknown } | undefined;
  void reply.failWhenBehind(options.maxBehindBytes).then((error) => {
    slow = { error };
    for (const wake of wakers) wake();
  });

  /** Writes one message; when the client is full, waits for it (or for the end), marking it stalled meanwhile. */
  const write = async (json: string) => {
    if (call.write(options.encode(json))) return;
    let stalled = false;
    const stall = setTimeout(() => {
      stalled = true;
      reply.stalled(true);
    }, STALLED_MS);
    let wake!: () => void;
    await new Promise<void>((resolve) => {
      wake = resolve;
      wakers.add(wake);
      void drainOrClose(call).then(() => resolve());
    });
    wakers.delete(wake);
    clearTimeout(stall);
    if (stalled) reply.stalled(false);
  };

  try {
    await write(JSON.stringify(reply.first));
    while (!gone && !slow) {
      const item = await reply.next(BARE);
      if (item === undefined || gone) break;
      await write(typeof item === "string" ? item : item.toString("utf8"));
    }
    if (gone) return;
    if (slow) call.emit("error", options.failed(slow.error));
    else call.end();
  } catch (error) {
    if (!gone) call.emit("error", options.failed(error));
  } finally {
    reply.close();
  }
}
