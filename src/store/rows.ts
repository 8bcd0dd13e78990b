// Rows of the state database, checked on every read: a row is trusted only once its shape is right, and no size in
// it is believed (sizes come from the text that is stored).
import * as v from "valibot";
import { EnvelopeSchema } from "../core/envelope/envelope-schema.js";
import { messageText } from "../core/envelope/message.js";
import { type OutputChunk, OutputLog } from "../core/task/output-log.js";
import { END_REASONS, FAIL_KINDS, isTerminal, TASK_STATES } from "../core/task/task.js";
import { type TaskRecord, viewOf } from "../core/task/task-record.js";
import { messageOfRow, StoredMessageSchema } from "./stored-message.js";

/** What `Date.prototype.toISOString` writes: the only timestamps the store writes, and the only ones it orders by. */
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const Instant = v.pipe(
  v.string(),
  v.regex(ISO_INSTANT, "expected an instant as toISOString writes it"),
  v.check((text) => !Number.isNaN(Date.parse(text)), "expected a real date"),
);
const Count = v.pipe(v.number(), v.safeInteger(), v.minValue(0));

/** The columns of a `tasks` row. */
const TaskRowSchema = v.object({
  n: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  id: v.pipe(v.string(), v.minLength(1), v.maxLength(256)),
  context_id: v.string(),
  state: v.picklist(TASK_STATES),
  updated_at: Instant,
  ended_seq: v.nullable(v.pipe(Count, v.minValue(1))),
  // pid 0 and 1 are never a command of ours, and kill(-1) would reach every process we may signal.
  pid: v.nullable(v.pipe(v.number(), v.safeInteger(), v.minValue(2, "expected a pid above 1"))),
  pid_start: v.nullable(v.pipe(v.string(), v.regex(/^\d{1,20}$/, "expected clock ticks since boot"))),
  stdout_dropped: Count,
  stderr_dropped: Count,
  detail: v.string(),
});
export type TaskRow = v.InferOutput<typeof TaskRowSchema>;

/** The rest of the record, as JSON in `detail`. */
const DetailSchema = v.object({
  instanceId: v.string(),
  dispatch: v.picklist(["adapter-command", "echo"]),
  statusText: v.optional(v.string()),
  createdAt: Instant,
  startedAt: v.optional(Instant),
  endedAt: v.optional(Instant),
  deadline: v.optional(Instant),
  failKind: v.optional(v.picklist(Object.keys(FAIL_KINDS) as Array<keyof typeof FAIL_KINDS>)),
  reason: v.optional(v.picklist(Object.keys(END_REASONS) as Array<keyof typeof END_REASONS>)),
  exitCode: v.nullable(v.pipe(v.number(), v.safeInteger())),
  signal: v.nullable(v.string()),
  envelope: v.optional(EnvelopeSchema),
  workingDir: v.optional(v.string()),
  timeoutSeconds: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1))),
  textLine: v.boolean(),
  extensions: v.array(v.string()),
  message: v.optional(StoredMessageSchema),
  // The task's event count when the row was written (CONTRACT 9.4); rows of older versions have none.
  statusEvents: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(1))),
  seq: v.optional(v.pipe(v.number(), v.safeInteger(), v.minValue(0))),
  answers: v.optional(v.array(StoredMessageSchema)),
  // How the containment guard finds the task's processes: what restart cleanup kills by (CONTRACT 5.5).
  guard: v.optional(
    v.variant("kind", [
      v.object({ kind: v.literal("cgroup"), path: v.string() }),
      v.object({ kind: v.literal("marker"), taskId: v.string(), instanceId: v.string() }),
      v.object({ kind: v.literal("group") }),
    ]),
  ),
});
type Detail = v.InferOutput<typeof DetailSchema>;

const ChunkRowSchema = v.object({
  seq: v.pipe(v.number(), v.safeInteger(), v.minValue(1)),
  stream: v.picklist(["stdout", "stderr"]),
  text: v.string(),
});
export type ChunkRow = v.InferOutput<typeof ChunkRowSchema>;

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

function check<T>(schema: v.GenericSchema<unknown, T>, value: unknown): Checked<T> {
  const parsed = v.safeParse(schema, value);
  if (parsed.success) return { ok: true, value: parsed.output };
  const issue = parsed.issues[0];
  return { ok: false, problem: `${v.getDotPath(issue) ?? "the row"}: ${issue.message}` };
}

/** The columns of a row, checked; an ended task must have its place in the order of ends, a running one none. */
export function checkTaskRow(row: unknown): Checked<TaskRow> {
  const checked = check(TaskRowSchema, row);
  if (!checked.ok) return checked;
  const { state, ended_seq } = checked.value;
  if (isTerminal(state) !== (ended_seq !== null))
    return {
      ok: false,
      problem: `ended_seq: ${ended_seq === null ? "missing for" : "set on"} a task that is ${state}`,
    };
  return checked;
}

export function checkChunkRow(row: unknown): Checked<ChunkRow> {
  return check(ChunkRowSchema, row);
}

/**
 * The record a checked row stands for; its logs get `chunks` (none when the output was not read). `detailChecked`:
 * this row's detail has passed the check before (src/store/checked-rows.ts), it is only parsed.
 */
export function recordOfRow(
  row: TaskRow,
  outputLimit: number,
  chunks: readonly ChunkRow[] = [],
  detailChecked = false,
): Checked<TaskRecord> {
  let json: unknown;
  try {
    json = JSON.parse(row.detail);
  } catch (error) {
    return { ok: false, problem: `detail: not JSON (${(error as Error).message})` };
  }
  const detail: Checked<Detail> = detailChecked ? { ok: true, value: json as Detail } : check(DetailSchema, json);
  if (!detail.ok) return { ok: false, problem: `detail.${detail.problem}` };
  const {
    workingDir,
    statusEvents,
    seq: seqWritten,
    message: storedMessage,
    answers: storedAnswers,
    ...fields
  } = detail.value;
  // Rows written before schema version 5 hold their messages in the shape the core had then (src/store/stored-message.ts).
  const message = storedMessage && messageOfRow(storedMessage);
  const rest = {
    ...fields,
    ...(message ? { message } : {}),
    ...(storedAnswers ? { answers: storedAnswers.map(messageOfRow) } : {}),
  };
  const logs = { stdout: [] as OutputChunk[], stderr: [] as OutputChunk[] };
  let seq = seqWritten ?? 0;
  for (const chunk of chunks) {
    logs[chunk.stream].push({ ...chunk, bytes: Buffer.byteLength(chunk.text) });
    seq = Math.max(seq, chunk.seq);
  }
  const record: TaskRecord = {
    ...rest,
    id: row.id,
    contextId: row.context_id,
    state: row.state,
    updatedAt: row.updated_at,
    messageText: messageText(rest.message),
    stdout: OutputLog.restore(outputLimit / 2, logs.stdout, row.stdout_dropped),
    stderr: OutputLog.restore(outputLimit / 2, logs.stderr, row.stderr_dropped),
    seq,
    statusEvents: statusEvents ?? 1,
    revision: 0,
  };
  if (row.pid !== null) record.pid = row.pid;
  if (row.pid_start !== null) record.pidStart = row.pid_start;
  if (workingDir !== undefined) record.placement = { workspace: "", workingDir, runnerPath: "", requestPath: "" };
  return { ok: true, value: record };
}

/** The `detail` JSON of a record: what the columns and the chunks do not hold, and nothing live (a prompt). */
export function detailOf(record: TaskRecord): string {
  const { id, contextId, state, updatedAt, pid, prompt, lastEvent, ...view } = viewOf(record, false);
  const detail = { ...view, statusEvents: record.statusEvents, seq: record.seq };
  const withGuard = record.guard ? { ...detail, guard: record.guard } : detail;
  return JSON.stringify(withGuard satisfies Detail);
}
