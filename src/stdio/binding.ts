// One stdio binding: the transport on a pair of streams and the connection that answers its frames with the serve
// root's JSON-RPC methods (docs/architecture.md). `serve --stdio` opens one on the process's stdin and stdout;
// tests open one on in-memory streams.
import type { Readable, Writable } from "node:stream";
import { DEFAULT_OUTPUT_LIMIT, type Dispatcher } from "../core/task/dispatcher.js";
import { DEFAULT_MAX_LINE_BYTES } from "../io/line-splitter.js";
import type { JsonRpcMethods } from "../jsonrpc/methods.js";
import { answerLimitOf } from "../operations/answer-budget.js";
import { StdioConnection } from "./connection.js";
import { StdioTransport } from "./transport.js";

export interface BindingOptions {
  input: Readable;
  output: Writable;
  /** The JSON-RPC face of the one operations table (the serve root's `methods`, src/serve/serve-root.ts). */
  methods: JsonRpcMethods;
  /** Whose load slows reading the input (src/stdio/transport.ts). */
  dispatcher: Dispatcher;
  maxLineBytes?: number;
  /** The bound of an answer and of a batch's answer (default: from the default --max-output-bytes). */
  maxAnswerBytes?: number;
  log(line: string): void;
  /** The input ended (`why` undefined) or failed. */
  onClose(why: string | undefined): void;
}

export interface StdioBinding {
  transport: StdioTransport;
  connection: StdioConnection;
}

export function openStdioBinding(options: BindingOptions): StdioBinding {
  const { log } = options;
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let connection!: StdioConnection;
  const transport = new StdioTransport({
    input: options.input,
    output: options.output,
    maxLineBytes,
    throttle: options.dispatcher,
    onFrame: (frame) => void connection.handle(frame),
    onClose: options.onClose,
  });
  const maxAnswerBytes = options.maxAnswerBytes ?? answerLimitOf(DEFAULT_OUTPUT_LIMIT);
  connection = new StdioConnection(options.methods, transport, { maxLineBytes, maxAnswerBytes, log });
  return { transport, connection };
}
