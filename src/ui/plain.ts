// `run` without a terminal: the command's stdout and stderr pass through byte for byte.

import { FlowControl } from "../io/backpressure.js";
import type { LiveTask } from "./live-task.js";

export function attachPlain(
  dispatcher: LiveTask,
  taskId: string | undefined,
  out: NodeJS.WritableStream,
  err: NodeJS.WritableStream,
) {
  const flow = new FlowControl(dispatcher);
  const off = dispatcher.subscribe((event) => {
    if (event.type !== "output" || (taskId !== undefined && event.taskId !== taskId) || event.raw.length === 0) return;
    flow.write((event.stream === "stdout" ? out : err) as never, event.raw);
  });
  return { flow, off };
}
