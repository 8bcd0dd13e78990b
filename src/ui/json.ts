// `run --json`: the task's A2A 0.3 events (as `tasks/event` carries them) as NDJSON on stdout.
import { encode03, type Framing } from "../a2a/wire/encode.js";
import { jsonBytesWithoutC1, jsonWithoutC1 } from "../core/printable.js";
import { FlowControl } from "../io/backpressure.js";
import type { LiveTask } from "./live-task.js";

/** One event a line, nothing around it. */
const LINE: Framing = { head: "", tail: "\n" };

export function attachJson(dispatcher: LiveTask, taskId: string | undefined, out: NodeJS.WritableStream) {
  const flow = new FlowControl(dispatcher);
  const off = dispatcher.subscribe((event) => {
    const id = event.type === "status" ? event.task.id : event.taskId;
    if (taskId !== undefined && id !== taskId) return;
    const line = encode03(event, LINE);
    // C1 controls escaped too: a terminal that shows the JSON must not act on them (docs/security.md, "The client").
    if (line !== undefined)
      flow.write(out as never, typeof line === "string" ? jsonWithoutC1(line) : jsonBytesWithoutC1(line));
  });
  return { flow, off };
}
