// Dispatcher events built by hand, for the pure front-end parts.
import type { DispatcherEvent } from "../../src/core/dispatcher.js";
import type { StreamName } from "../../src/core/output-log.js";

let seq = 0;

/** An output event of task-1; `first` marks the first chunk of its stream. */
export function output(text: string, stream: StreamName = "stdout", first = false): DispatcherEvent {
  seq += 1;
  return { type: "output", taskId: "task-1", contextId: "ctx-1", stream, seq, text, raw: Buffer.from(text), first };
}
