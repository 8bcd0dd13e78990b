// One stdio binding: the transport on a pair of streams, the connection that answers its frames, and the JSON-RPC
// methods of both A2A families over the operations table (docs/architecture.md). `serve --stdio` opens one on the process's stdin and
// stdout; tests open one on in-memory streams.
import type { Readable, Writable } from "node:stream";
import type { A2aService } from "../a2a/service.js";
import { DEFAULT_OUTPUT_LIMIT } from "../core/task/dispatcher.js";
import { DEFAULT_MAX_LINE_BYTES } from "../io/line-splitter.js";
import { createMethods } from "../jsonrpc/methods.js";
import { answerLimitOf } from "../operations/answer-budget.js";
import { createOperations, type OperationDeps } from "../operations/table.js";
import { StdioConnection } from "./connection.js";
import { StdioTransport } from "./transport.js";

export interface BindingOptions {
  input: Readable;
  output: Writable;
  service: A2aService;
  /** The package's version, for the agent card. */
  version: string;
  maxLineBytes?: number;
  /** The bound of an answer and of a batch's answer (default: from the default --max-output-bytes). */
  maxAnswerBytes?: number;
  /** What the extended card adds (CONTRACT 8.2); without it, GetExtendedAgentCard is not configured. */
  operator?: OperationDeps["operator"];
  log(line: string): void;
  /** The runtime's operation deps beyond the service (its extensions, CONTRACT 9); none in tests that need none. */
  operationDeps?: Partial<OperationDeps>;
  /** The input ended (`why` undefined) or failed. */
  onClose(why: string | undefined): void;
}

export interface StdioBinding {
  transport: StdioTransport;
  connection: StdioConnection;
}

export function openStdioBinding(options: BindingOptions): StdioBinding {
  const { service, log } = options;
  const operations = createOperations({ ...options.operationDeps, service, version: options.version, log });
  const server = createMethods(operations);
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  let connection!: StdioConnection;
  const transport = new StdioTransport({
    input: options.input,
    output: options.output,
    maxLineBytes,
    throttle: service.dispatcher,
    onFrame: (frame) => void connection.handle(frame),
    onClose: options.onClose,
  });
  const maxAnswerBytes = options.maxAnswerBytes ?? answerLimitOf(DEFAULT_OUTPUT_LIMIT);
  connection = new StdioConnection(server, transport, { maxLineBytes, maxAnswerBytes, log });
  return { transport, connection };
}
