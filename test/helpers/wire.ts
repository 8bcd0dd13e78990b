// Reading what the bridges send: wire objects (asserted on, not trusted), tasks' artifacts and events' text.

// biome-ignore lint/suspicious/noExplicitAny: wire objects are asserted on, not trusted
export type Wire = any;

/** A `tasks/event` notification's params: a 0.3 event, or a 1.0 StreamResponse; tests assert on the shapes. */
export interface TaskEvent {
  kind?: "status-update" | "artifact-update";
  taskId: string;
  contextId: string;
  status?: Wire;
  final?: boolean;
  artifact?: Wire;
  append?: boolean;
  lastChunk?: boolean;
  statusUpdate?: Wire;
  artifactUpdate?: Wire;
  /** A SubscribeToTask stream's request id (CONTRACT 7.3). */
  subscription?: unknown;
}

export interface RpcError {
  code: number;
  message: string;
  data?: Wire;
}

/** The task a `tasks/event` belongs to: a 0.3 event's `taskId`, or the one inside a 1.0 StreamResponse. */
export function taskIdOf(event: Wire): string | undefined {
  const inner = event?.statusUpdate ?? event?.artifactUpdate ?? event?.task ?? event;
  const id = inner?.taskId ?? (event?.task ? event.task.id : undefined);
  return typeof id === "string" ? id : undefined;
}

/** The text of one artifact (`stdout` / `stderr`) of a wire task, its parts joined in order. */
export function artifactText(task: Wire, stream: "stdout" | "stderr"): string {
  const artifact = (task?.artifacts ?? []).find((a: Wire) => a.artifactId === stream);
  return artifact ? artifact.parts.map((part: Wire) => part.text).join("") : "";
}

/** The text of the artifact updates (0.3 events or 1.0 StreamResponses) per stream, in arrival order. */
export function eventText(events: Wire[], stream: "stdout" | "stderr"): string {
  return events
    .map((event) => (event.kind === "artifact-update" ? event : event.artifactUpdate))
    .filter((update) => update?.artifact?.artifactId === stream)
    .map((update) => (update.artifact.parts as Wire[]).map((part) => part.text).join(""))
    .join("");
}

export const ended = (task: Wire) => ["completed", "failed", "canceled"].includes(task?.status?.state);
