// What a Task is on the wire in both families: the same fields, each family with its own status, artifact and
// message shapes (src/a2a/v0_3/codec.ts adds its `kind`).

export interface TaskShape<Status, Artifact, HistoryMessage> {
  id: string;
  contextId: string;
  status: Status;
  artifacts?: Artifact[];
  history?: HistoryMessage[];
  metadata: Record<string, unknown>;
}
