// `run --json`: the task's A2A 0.3 events (as `tasks/event` carries them) as NDJSON on stdout.
import { eventOf } from "../a2a/v0_3/codec.js";
import { eventJson } from "../a2a/v0_3/event-json.js";
import type { Dispatcher } from "../core/dispatcher.js";
import { FlowControl } from "../io/backpressure.js";

export function attachJson(dispatcher: Dispatcher, taskId: string | undefined, out: NodeJS.WritableStream) {
  const flow = new FlowControl(dispatcher);
  const off = dispatcher.subscribe((event) => {
    const id = event.type === "status" ? event.task.id : event.taskId;
    if (taskId !== undefined && id !== taskId) return;
    const wire = eventOf(event);
    if (wire) flow.write(out as never, eventJson(wire, "", "\n"));
  });
  return { flow, off };
}
