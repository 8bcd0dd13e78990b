// `run --json`: the task's A2A 0.3 events (as `tasks/event` carries them) as NDJSON on stdout.
import { itemJson03 } from "../a2a/stream-json.js";
import { eventOf } from "../a2a/v0_3/codec.js";
import type { Dispatcher } from "../core/dispatcher.js";
import { FlowControl } from "../io/backpressure.js";

export function attachJson(dispatcher: Dispatcher, taskId: string | undefined, out: NodeJS.WritableStream) {
  const flow = new FlowControl(dispatcher);
  const off = dispatcher.subscribe((event) => {
    const id = event.type === "status" ? event.task.id : event.taskId;
    if (taskId !== undefined && id !== taskId) return;
    // Output goes to itemJson03 as the dispatcher's event, so that large output is escaped from its bytes.
    const item = event.type === "output" ? (event.data.length > 0 ? event : undefined) : eventOf(event);
    if (item) flow.write(out as never, itemJson03(item, "", "\n"));
  });
  return { flow, off };
}
