// One stdio client: a frame in, zero or more answers out (CONTRACT 5.1). Batches are bounded; a batch's answer is
// handed to the transport entry by entry, each encoded only when the output takes it; a stream's first item is the
// request's result, and its other items follow as `tasks/event` notifications (CONTRACT 7.3).
import type { JSONRPCResponse, JSONRPCServer } from "json-rpc-2.0";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import type { Framing } from "../a2a/wire/encode.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { isRecord, MAX_NESTING, nestingDepth } from "../core/json-value.js";
import type { Problem } from "../core/problems.js";
import { type Frame, headOf } from "../io/line-splitter.js";
import type { OutLine } from "../io/outbox.js";
import { responseJson } from "../jsonrpc/json-text.js";
import type { CallContext } from "../jsonrpc/methods.js";
import { errorResponse, idInHead, notARequest } from "../jsonrpc/requests.js";
import { sendDuplicates } from "../jsonrpc/send-duplicates.js";

/** The `tasks/event` notification that carries a stream's item, one line each (CONTRACT 5.4, 7.3). */
const NOTIFICATION: Framing = { head: `{"jsonrpc":"2.0","method":"tasks/event","params":`, tail: "}\n" };

export const MAX_BATCH = 1000;

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

  constructor(
    private readonly server: JSONRPCServer<CallContext>,
    private readonly sink: ConnectionSink,
    private readonly options: { maxLineBytes: number; log(line: string): void },
  ) {}

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
    if (frame.kind === "oversized") {
      const detail = `line of ${frame.bytes} bytes is over the limit of ${this.options.maxLineBytes}; discarded`;
      this.write(errorResponse(idInHead(headOf(frame)), A2A_CODES.invalidRequest, "Invalid Request", { detail }));
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(frame.text);
    } catch (error) {
      this.write(errorResponse(null, A2A_CODES.parseError, "Parse error", { detail: (error as Error).message }));
      return;
    }
    if (nestingDepth(value, MAX_NESTING) > MAX_NESTING) {
      const detail = `nested deeper than ${MAX_NESTING} levels`;
      this.write(
        errorResponse(isRecord(value) ? value.id : null, A2A_CODES.invalidRequest, "Invalid Request", { detail }),
      );
      return;
    }
    // Send requests whose params repeat a key are refused: a second key could hide an envelope (CONTRACT section 2).
    const duplicates = sendDuplicates(frame.text, value);
    if (!Array.isArray(value)) {
      const response = await this.one(value, duplicates);
      if (response) this.write(response);
      return;
    }
    if (value.length === 0 || value.length > MAX_BATCH) {
      const detail =
        value.length === 0
          ? "expected a non-empty batch"
          : `expected at most ${MAX_BATCH} requests in a batch, found ${value.length}`;
      this.write(errorResponse(null, A2A_CODES.invalidRequest, "Invalid Request", { detail }));
      return;
    }
    const responses = (await Promise.all(value.map((item) => this.one(item, duplicates)))).filter(
      (response): response is JSONRPCResponse => response !== null,
    );
    if (responses.length === 0) return;
    // One line: "[", then each entry encoded when the output takes it, then "]".
    const lines: OutLine[] = responses.map((response, i) => () => `${i === 0 ? "[" : ","}${this.encode(response)}`);
    lines.push("]\n");
    this.sink.sendAll(lines);
    for (const response of responses) this.follow(response);
  }

  private async one(value: unknown, duplicates: Map<unknown, Problem>): Promise<JSONRPCResponse | null> {
    const problem = notARequest(value);
    if (problem)
      return errorResponse(isRecord(value) ? value.id : null, A2A_CODES.invalidRequest, "Invalid Request", {
        detail: problem,
      });
    const duplicate = duplicates.get(value);
    if (duplicate) {
      if (!("id" in (value as object))) return null;
      const message = `Invalid params: ${duplicate.message}${duplicate.path ? ` at ${duplicate.path}` : ""}`;
      return errorResponse((value as { id: unknown }).id, A2A_CODES.invalidParams, message, { errors: [duplicate] });
    }
    return this.server.receive(value as never, { notification: !("id" in (value as object)) });
  }

  private write(response: JSONRPCResponse): void {
    this.sink.sendAll([() => `${this.encode(response)}\n`]);
    this.follow(response);
  }

  /** A stream's result is out: its events follow, at the pace the output takes them. */
  private follow(response: JSONRPCResponse): void {
    const reply = response.result;
    if (!(reply instanceof StreamReply)) return;
    // One client follows a task once in each shape: a second stream of the same task and family would only repeat
    // each event. A stream in the other family's shapes is followed too: its reader waits for its own closing event.
    if ([...this.streams].some((open) => open.taskId === reply.taskId && open.family === reply.family)) {
      reply.close();
      return;
    }
    this.streams.add(reply);
    void (async () => {
      try {
        for (;;) {
          if (this.sink.isFull) await this.sink.drained();
          const line = await reply.next(NOTIFICATION);
          if (line === undefined) break;
          this.sink.sendAll([line]);
        }
      } catch (error) {
        this.options.log(`internal error while following a task: ${(error as Error)?.stack ?? error}`);
      } finally {
        this.streams.delete(reply);
      }
    })();
  }

  private encode(response: JSONRPCResponse): string {
    const result = response.result instanceof StreamReply ? { ...response, result: response.result.first } : response;
    try {
      return responseJson(result);
    } catch (error) {
      this.options.log(`internal error: cannot encode an answer: ${(error as Error).message}`);
      return JSON.stringify(errorResponse(response.id, A2A_CODES.internal, "Internal error"));
    }
  }
}
