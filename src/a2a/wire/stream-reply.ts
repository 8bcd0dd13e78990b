// What a streaming method answers, the one type both bindings frame: its first item (the request's answer) and the
// rest, each written as JSON by its family's encoder inside the binding's frame: `tasks/event` notifications on
// stdio, SSE events on HTTP (CONTRACT 7.3, 8.4; docs/architecture.md, "The output path").
import type { Family } from "../service-params.js";
import type { StreamItem, TaskStream } from "../task-stream.js";
import type { Framing, ItemEncoder, WireJson } from "./encode.js";

export class StreamReply<Item = StreamItem> {
  constructor(
    /** The task the stream follows. */
    readonly taskId: string,
    /** The first item, a wire object (the request's result). */
    readonly first: object,
    private readonly items: AsyncIterator<Item>,
    private readonly encode: ItemEncoder<Item>,
    /** The A2A version whose shapes the items have: two streams of one task in one shape repeat each other. */
    readonly family: Family,
    /**
     * 1.0 streams: the event number (CONTRACT 9.4) of the first item, and of each item after it, which an SSE binding
     * writes as `id:` (stdio has none).
     */
    private readonly numbers?: { first: number; of(item: Item): number },
    /** A SubscribeToTask stream: on stdio its notifications name the request (`params.subscription`, CONTRACT 7.3). */
    readonly subscription = false,
  ) {}

  /** The first item's event number, on a numbered stream. */
  get firstNumber(): number | undefined {
    return this.numbers?.first;
  }

  /**
   * The next item as JSON inside `frame`, or undefined once the stream is over (items not sent are skipped). With
   * `numbered`, a numbered stream's item has its number's line (SSE `id:`) before the frame.
   */
  async next(frame: Framing, numbered?: (n: number) => string): Promise<WireJson | undefined> {
    for (;;) {
      const step = await this.items.next();
      if (step.done) return undefined;
      const framing =
        numbered && this.numbers
          ? { head: `${numbered(this.numbers.of(step.value))}${frame.head}`, tail: frame.tail }
          : frame;
      const json = this.encode(step.value, framing);
      if (json !== undefined) return json;
    }
  }

  /**
   * A reader that may not hold the task back while stalled (HTTP, CONTRACT 8.4): resolves with the error that ends the
   * stream once it is more than `maxBytes` of output behind; never, for items that are not a task's stream.
   */
  failWhenBehind(maxBytes: number): Promise<unknown> {
    const items = this.items as Partial<Pick<TaskStream, "failWhenBehind">>;
    return items.failWhenBehind?.(maxBytes) ?? new Promise(() => {});
  }

  /** The reader has taken nothing for a while (true), or took something again (false). */
  stalled(stalled: boolean): void {
    (this.items as Partial<Pick<TaskStream, "stalled">>).stalled?.(stalled);
  }

  /** The reader is gone: stop following the task (it goes on). */
  close(): void {
    void this.items.return?.();
  }
}
