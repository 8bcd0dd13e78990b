// `run --json`: the task's A2A 0.3 events (as `tasks/event` carries them) as NDJSON on stdout.
import { encode03, type Framing } from "../a2a/wire/encode.js";
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
    if (line !== undefined) flow.write(out as never, line);
  });
  return { flow, off };
}
