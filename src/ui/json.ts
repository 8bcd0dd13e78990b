// `run --json`: the task's A2A 0.3 events (as `tasks/event` carries them) as NDJSON on stdout.
import { itemJson03, streamItem03 } from "../a2a/stream-json.js";
import type { Dispatcher } from "../core/dispatcher.js";
import { FlowControl } from "../io/backpressure.js";

export function attachJson(dispatcher: Dispatcher, taskId: string | undefined, out: NodeJS.WritableStream) {
  const flow = new FlowControl(dispatcher);
  const off = dispatcher.subscribe((event) => {
    const id = event.type === "status" ? event.task.id : event.taskId;
    if (taskId !== undefined && id !== taskId) return;
    const item = streamItem03(event);
    if (item) flow.write(out as never, itemJson03(item, "", "\n"));
  });
  return { flow, off };
}
