// One stdio client: a frame in, zero or more answers out (CONTRACT 5.1). The JSON-RPC handler (src/jsonrpc/handler.ts)
// answers the frame; this file frames its answers as lines: a single answer is encoded only when the output takes
// it, a batch's on one line entry by entry; a stream's first item is the request's result, and its other items
// follow as `tasks/event` notifications (CONTRACT 7.3).
import type { JSONRPCResponse } from "json-rpc-2.0";
import type { Framing, WireJson } from "../a2a/wire/encode.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { passGate, tooLarge } from "../gate/request-gate.js";
import { type Frame, headOf } from "../io/line-splitter.js";
import type { OutLine } from "../io/outbox.js";
import { JsonRpcHandler } from "../jsonrpc/handler.js";
import type { JsonRpcMethods } from "../jsonrpc/methods.js";

/** The `tasks/event` notification that carries a stream's item, one line each (CONTRACT 5.4, 7.3). */
const NOTIFICATION: Framing = { head: `{"jsonrpc":"2.0","method":"tasks/event","params":`, tail: "}\n" };

export interface ConnectionSink {
  sendAll(lines: OutLine[]): void;
  readonly isFull: boolean;
  /** Resolves once the output has room again. */
  drained(): Promise<void>;
}

export class StdioConnection {
  private inFlight = 0;
  private idle: Array<() => void> = [];
  private readonly streams = new Set<StreamReply>();
  private readonly handler: JsonRpcHandler;

  constructor(
    methods: JsonRpcMethods,
    private readonly sink: ConnectionSink,
    private readonly options: { maxLineBytes: number; maxAnswerBytes: number; log(line: string): void },
  ) {
    // A stream may be a batch's entry: its events follow on lines of their own.
    this.handler = new JsonRpcHandler({
      methods,
      maxAnswerBytes: options.maxAnswerBytes,
      log: options.log,
      streamsAlone: false,
    });
  }

  /** Handles one frame; resolves once its answers (not its streams' events) are handed on. */
  async handle(frame: Frame): Promise<void> {
    this.inFlight += 1;
    try {
      await this.answer(frame);
    } catch (error) {
      this.options.log(`internal error: ${(error as Error)?.stack ?? error}`);
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0) for (const done of this.idle.splice(0)) done();
    }
  }

  /** Resolves when no frame is being answered. */
  settled(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idle.push(resolve));
  }

  /** Stops following every open stream (the tasks go on). */
  closeStreams(): void {
    for (const stream of this.streams) stream.close();
    this.streams.clear();
  }

  private async answer(frame: Frame): Promise<void> {
    // Every rule on a request's bytes is the gate's, the same as on HTTP (src/gate/request-gate.ts).
    const verdict =
      frame.kind === "oversized"
        ? ({ ok: false, refusal: tooLarge(frame.bytes, this.options.maxLineBytes, headOf(frame)) } as const)
        : passGate({ shape: "jsonrpc", bytes: frame.line, maxBytes: this.options.maxLineBytes });
    // A notification's stream, if any, is closed at once (src/operations/table.ts).
    const answer = await this.handler.answer(verdict, (request) => ({ notification: !("id" in request) }));
    if (answer.kind === "none") return;
    if (answer.kind === "one") {
      const { request, response } = answer;
      // Encoded when the output takes it (a stream whose first answer is past the bound is closed then).
      this.sink.sendAll([() => [...this.handler.pieces(request, response), "\n"]]);
      this.follow(response);
      return;
    }
    // One line, "[", the entries, "]": nothing else is written in between.
    const lines: OutLine[] = answer.texts.map((text, i) => {
      const opening = i === 0 ? "[" : ",";
      return typeof text === "string" ? `${opening}${text}` : () => [opening, ...text()];
    });
    lines.push("]\n");
    this.sink.sendAll(lines);
    for (const response of answer.written) this.follow(response);
  }

  /** A stream's result is out: its events follow, at the pace the output takes them. */
  private follow(response: JSONRPCResponse): void {
    const reply = response.result;
    if (!(reply instanceof StreamReply)) return;
    // One client follows a task once in each shape: a second stream of the same task and family would only repeat
    // each event. A stream in the other family's shapes is followed too: its reader waits for its own closing event.
    // A subscription's notifications carry its request's id, so they never just repeat another stream's.
    const repeats = (open: StreamReply) =>
      !open.subscription && open.taskId === reply.taskId && open.family === reply.family;
    if (!reply.subscription && [...this.streams].some(repeats)) {
      reply.close();
      return;
    }
    // A subscription's item is written bare and spliced into its notification; any other inside NOTIFICATION.
    const frame = reply.subscription ? BARE : NOTIFICATION;
    const line = reply.subscription ? subscriptionLine(response.id) : (json: WireJson): OutLine => json;
    this.streams.add(reply);
    void (async () => {
      try {
        for (;;) {
          if (this.sink.isFull) await this.sink.drained();
          const json = await reply.next(frame);
          if (json === undefined) break;
          this.sink.sendAll([line(json)]);
        }
      } catch (error) {
        this.options.log(`internal error while following a task: ${(error as Error)?.stack ?? error}`);
      } finally {
        this.streams.delete(reply);
      }
    })();
  }
}

const BARE: Framing = { head: "", tail: "" };

/** `{"subscription":<id>,` goes where the item's JSON opens its object: the item's fields follow it in `params`. */
function subscriptionLine(id: JSONRPCResponse["id"]) {
  const head = `${NOTIFICATION.head}{"subscription":${JSON.stringify(id)},`;
  return (json: WireJson): OutLine => {
    if (typeof json === "string") return `${head}${json.slice(1)}}\n`;
    return Buffer.concat([Buffer.from(head), json.subarray(1), Buffer.from("}\n")]);
  };
}
