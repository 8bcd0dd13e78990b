// The stdio binding in-process, on a pair of PassThrough streams: requests written to `input`, answers read from
// `output` as they come (or not read at all, to see what the bridge does when its reader stops).
import { PassThrough, type Writable } from "node:stream";
import { A2aService } from "../../src/a2a/service.js";
import { Dispatcher, type DispatcherOptions } from "../../src/core/task/dispatcher.js";
import { LineSplitter } from "../../src/io/line-splitter.js";
import { createMethods } from "../../src/jsonrpc/methods.js";
import { createOperations } from "../../src/operations/table.js";
import { openStdioBinding, type StdioBinding } from "../../src/stdio/binding.js";
import { MemoryStore } from "../../src/store/memory.js";
import { FIXTURES } from "./cli.js";
import { WaitableQueue } from "./waitable-queue.js";
import type { Wire } from "./wire.js";

export interface InProcessOptions {
  maxLineBytes?: number;
  dispatcher?: Partial<DispatcherOptions>;
  /** Where answers go instead of a PassThrough whose lines are parsed and queued (a test that reads them itself). */
  output?: Writable;
}

export class InProcessBridge {
  readonly input = new PassThrough();
  readonly output: Writable;
  readonly dispatcher: Dispatcher;
  readonly binding: StdioBinding;
  readonly logs: string[] = [];
  private readonly lines = new WaitableQueue<Wire>();

  constructor(options: InProcessOptions = {}) {
    const piped = options.output ? undefined : new PassThrough({ highWaterMark: 16 * 1024 });
    this.output = options.output ?? (piped as PassThrough);
    this.dispatcher = new Dispatcher({ store: new MemoryStore(), workspace: FIXTURES, ...options.dispatcher });
    this.binding = openStdioBinding({
      input: this.input,
      output: this.output,
      methods: createMethods(
        createOperations({ service: new A2aService(this.dispatcher), version: "0.0.0-test", log: () => {} }),
      ),
      dispatcher: this.dispatcher,
      ...(options.maxLineBytes !== undefined ? { maxLineBytes: options.maxLineBytes } : {}),
      log: (line) => this.logs.push(line),
      onClose: () => {},
    });
    if (piped) {
      const splitter = new LineSplitter(256 * 1024 * 1024);
      piped.on("data", (chunk: Buffer) => {
        for (const frame of splitter.push(chunk))
          this.lines.push(frame.kind === "line" ? JSON.parse(frame.line.toString("utf8")) : { oversized: frame.bytes });
      });
    }
  }

  /** Writes one line of text (a value is sent as its JSON). */
  send(line: unknown): void {
    this.input.write(`${typeof line === "string" ? line : JSON.stringify(line)}\n`);
  }

  /** The next line the bridge wrote, parsed. */
  next(timeoutMs = 10_000): Promise<Wire> {
    return this.lines.take(
      () => true,
      timeoutMs,
      () => "a line from the in-process bridge",
    );
  }

  /** Lines written and not taken yet. */
  pending(): Wire[] {
    return this.lines.drain();
  }

  async close(): Promise<void> {
    this.binding.transport.stopReading();
    await this.dispatcher.shutdown();
    this.binding.connection.closeStreams();
    this.output.destroy();
  }
}
