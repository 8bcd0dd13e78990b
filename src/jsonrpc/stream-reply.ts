// What a streaming JSON-RPC method answers: its first item (the request's `result`) and the rest, already in the
// method's wire shapes, with the encoder that writes one item as JSON text. Each binding frames the rest its own way:
// `tasks/event` notifications on stdio, SSE events on HTTP (CONTRACT 7.3, 8.4).
import type { WireJson } from "../a2a/json-string.js";

/** The number of a stream's first item, and of the last item pulled from its `rest`. */
export interface EventNumbers {
  first: number;
  last: number;
}

export class StreamReply {
  constructor(
    /** The task the stream follows. */
    readonly taskId: string,
    readonly first: unknown,
    readonly rest: AsyncIterator<unknown>,
    /** `head`, the JSON text of one item of `rest`, then `tail`: the binding's frame, made in one piece with the item. */
    readonly encode: (item: unknown, head: string, tail: string) => WireJson,
    /** The A2A version whose shapes the items have: two streams of one task in one shape repeat each other. */
    readonly family?: "0.3" | "1.0",
    /**
     * 1.0 streams: the event numbers (CONTRACT 9.4) of the first item and of the item `rest` gave last, which an
     * SSE binding writes as `id:`.
     */
    readonly numbers?: EventNumbers,
    /** A SubscribeToTask stream: on stdio its notifications name the request (`params.subscription`, CONTRACT 7.3). */
    readonly subscription = false,
  ) {}

  /** The reader is gone: stop following the task (it goes on). */
  close(): void {
    void this.rest.return?.();
  }
}
