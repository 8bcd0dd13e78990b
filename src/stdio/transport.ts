// The stdio transport (CONTRACT 5.1, 5.5): NDJSON frames in, lines out, with the streams injected so it is tested
// in-process. While the reader of our output is not keeping up, children's output is not read either, and requests
// read meanwhile wait in a bounded queue; past it, stdin is paused too. Reading on until that bound means a client
// that stops reading and closes stdin is still heard, and the bridge can end.
import type { Readable, Writable } from "node:stream";
import { FlowControl, type Throttle } from "../io/backpressure.js";
import { DEFAULT_MAX_LINE_BYTES, type Frame, LineSplitter } from "../io/line-splitter.js";
import { Outbox, type OutLine } from "../io/outbox.js";

/** Requests read while output is full: this many, or this many bytes, before stdin is paused. */
const MAX_WAITING_FRAMES = 256;
const MAX_WAITING_BYTES = 16 * 1024 * 1024;

export interface TransportOptions {
  input: Readable;
  output: Writable;
  maxLineBytes?: number;
  /** Children's output: paused while ours is full. */
  throttle: Throttle;
  onFrame(frame: Frame): void;
  /** The input ended or failed: why, in words. */
  onClose(why: string | undefined): void;
}

export class StdioTransport {
  readonly flow: FlowControl;
  private readonly outbox: Outbox;
  private readonly splitter: LineSplitter;
  private readonly waiting: Frame[] = [];
  private waitingBytes = 0;
  private closed = false;
  /** The input has ended: frames already read are still answered, no more are read. */
  private ended = false;
  private whenDelivered: Array<() => void> = [];

  constructor(private readonly options: TransportOptions) {
    this.splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
    this.flow = new FlowControl({
      pauseOutput: () => options.throttle.pauseOutput(),
      resumeOutput: () => {
        this.outbox.flush();
        if (this.flow.isFull) return;
        options.throttle.resumeOutput();
        this.deliverWaiting();
      },
    });
    this.outbox = new Outbox(options.output, this.flow);
    const { input, output } = options;
    input.on("data", (chunk: Buffer) => {
      if (this.closed) return;
      for (const frame of this.splitter.push(chunk)) this.take(frame);
    });
    input.on("end", () => {
      for (const frame of this.splitter.end()) this.take(frame);
      this.ended = true;
      this.options.onClose(undefined);
    });
    input.on("error", (error: Error) => this.close(`cannot read stdin (${error.message})`));
    output.on("error", (error: Error) => this.close(`cannot write stdout (${error.message})`));
  }

  /** A line to write, or how to make it when its turn comes (answers wait unencoded). */
  send(line: OutLine): void {
    this.outbox.push(line);
  }

  /** Lines pushed together are written together, in order: nothing comes between them. */
  sendAll(lines: OutLine[]): void {
    for (const line of lines) this.outbox.push(line);
  }

  get isFull(): boolean {
    return this.flow.isFull;
  }

  /** Resolves once everything sent so far has been handed to the output. */
  drained(): Promise<void> {
    return this.outbox.drained();
  }

  /** Resolves once every frame read so far has been handed on (none waits for the output to drain). */
  delivered(): Promise<void> {
    if (this.waiting.length === 0 || this.closed) return Promise.resolve();
    return new Promise((resolve) => this.whenDelivered.push(resolve));
  }

  /** Stops reading (at shutdown); frames still waiting are dropped. */
  stopReading(): void {
    this.closed = true;
    this.waiting.length = 0;
    this.options.input.pause();
    for (const done of this.whenDelivered.splice(0)) done();
  }

  private take(frame: Frame): void {
    if (this.closed) return;
    if (!this.flow.isFull && this.waiting.length === 0) {
      this.options.onFrame(frame);
      return;
    }
    this.waiting.push(frame);
    this.waitingBytes += frame.kind === "line" ? frame.line.length : 0;
    if (this.waiting.length >= MAX_WAITING_FRAMES || this.waitingBytes >= MAX_WAITING_BYTES) this.options.input.pause();
  }

  private deliverWaiting(): void {
    while (this.waiting.length > 0 && !this.flow.isFull && !this.closed) {
      const frame = this.waiting.shift() as Frame;
      this.waitingBytes -= frame.kind === "line" ? frame.line.length : 0;
      this.options.onFrame(frame);
    }
    if (this.waiting.length > 0) return;
    for (const done of this.whenDelivered.splice(0)) done();
    if (!this.closed && !this.ended) this.options.input.resume();
  }

  private close(why: string): void {
    this.closed = true;
    this.options.onClose(why);
  }
}
