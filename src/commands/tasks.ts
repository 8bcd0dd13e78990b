// `adapter-command tasks list|show|answer|cancel --server URL`: the A2A task methods from the terminal. A person
// gets a table or a few lines; `--json` prints every field of each task, `--json id,state` only those (as `gh
// --json` does). `tasks watch` is run-remote.ts. Exit codes: 0 done, 1 refused (no open prompt, not cancelable,
// no such task), 2 usage, 4 the server (unreachable, auth refused, no adapter-command/v1 on its card).
import { CancelTaskRequest, GetTaskRequest, ListTasksRequest, type Task } from "@a2a-js/sdk";
import { type Binding, type Connection, connect } from "../client/connect.js";
import { ClientFailure, classify } from "../client/failures.js";
import { promptOf, RemoteTaskModel, stateOf, textOf } from "../client/remote-events.js";
import { sendAnswerMessage } from "../client/remote-task.js";
import { resolveTaskId } from "../client/task-prefix.js";
import { jsonWithoutC1, printable } from "../core/printable.js";
import { TASK_STATES } from "../core/task/task.js";
import { ADAPTER_URI } from "../core/uris.js";
import { EXIT } from "../exit-codes.js";
import type { Io } from "../io/io.js";
import { printFailure } from "./run-remote.js";

export interface TasksOptions {
  server: string;
  tokenFile?: string;
  binding?: Binding;
  trustOrigin?: string[];
  json?: string | boolean;
  context?: string;
  status?: string;
  pageSize?: number;
  pageToken?: string;
  since?: string;
}

/** One task as `--json` prints it: flat, the names a script wants. */
export interface TaskSummary {
  id: string;
  contextId: string;
  state: string;
  updatedAt: string | null;
  statusText: string | null;
  exitCode: number | null;
  signal: string | null;
  failKind: string | null;
  reason: string | null;
  adapter: string | null;
  mode: string | null;
  workingDir: string | null;
  promptId: string | null;
  prompt: string | null;
  stdout: string;
  stderr: string;
}

export const TASK_FIELDS: (keyof TaskSummary)[] = [
  "id",
  "contextId",
  "state",
  "updatedAt",
  "statusText",
  "exitCode",
  "signal",
  "failKind",
  "reason",
  "adapter",
  "mode",
  "workingDir",
  "promptId",
  "prompt",
  "stdout",
  "stderr",
];

const str = (value: unknown) => (typeof value === "string" ? value : null);

export function summaryOf(task: Task): TaskSummary {
  const adapter = (task.metadata?.[ADAPTER_URI] ?? {}) as Record<string, unknown>;
  const state = stateOf(task.status?.state);
  const prompt = state === "input-required" ? promptOf(task.status?.message) : undefined;
  const output = { stdout: "", stderr: "" };
  const model = new RemoteTaskModel();
  for (const event of model.takeTask({ ...task, status: undefined }))
    if (event.type === "output") output[event.stream] += event.text;
  return {
    id: task.id,
    contextId: task.contextId,
    state,
    updatedAt: task.status?.timestamp ?? null,
    statusText: prompt ? null : textOf(task.status?.message) || null,
    exitCode: typeof adapter.exit_code === "number" ? adapter.exit_code : null,
    signal: str(adapter.signal),
    failKind: str(adapter.fail_kind),
    reason: str(adapter.reason),
    adapter: str(adapter.adapter),
    mode: str(adapter.mode),
    workingDir: str(adapter.working_dir),
    promptId: prompt?.id ?? null,
    prompt: prompt?.text ?? null,
    ...output,
  };
}

/** The fields `--json a,b` asks for, or a usage error naming the ones there are. */
export function pickFields(json: string | boolean | undefined): (keyof TaskSummary)[] | string {
  if (json === undefined || json === true || json === false) return TASK_FIELDS;
  const asked = json
    .split(",")
    .map((field) => field.trim())
    .filter((field) => field !== "");
  const unknown = asked.filter((field) => !(TASK_FIELDS as string[]).includes(field));
  if (asked.length === 0 || unknown.length > 0)
    return `unknown JSON field${unknown.length === 1 ? "" : "s"}: ${unknown.join(", ") || "(none given)"}; available: ${TASK_FIELDS.join(", ")}`;
  return asked as (keyof TaskSummary)[];
}

function pick(summary: TaskSummary, fields: (keyof TaskSummary)[]): Record<string, unknown> {
  return Object.fromEntries(fields.map((field) => [field, summary[field]]));
}

export async function tasksCommand(
  verb: "list" | "show" | "answer" | "cancel",
  args: string[],
  options: TasksOptions,
  io: Io,
): Promise<number> {
  const say = (line: string) => io.stderr.write(`adapter-command: ${printable(line)}\n`);
  const fields = pickFields(options.json);
  if (typeof fields === "string") {
    say(fields);
    return EXIT.usage;
  }
  if (options.status !== undefined && !(TASK_STATES as readonly string[]).includes(options.status)) {
    say(`expected --status to be one of ${TASK_STATES.join(", ")}, found "${options.status}"`);
    return EXIT.usage;
  }
  let connection: Connection;
  try {
    connection = await connect(options, { hitl: verb === "answer" });
  } catch (error) {
    return printFailure(classify(error, undefined), options.server, io);
  }
  const json = options.json !== undefined;
  const print = (tasks: Task[], list: boolean) => {
    const picked = tasks.map((task) => pick(summaryOf(task), fields));
    io.stdout.write(`${jsonWithoutC1(JSON.stringify(list ? picked : picked[0], null, 2))}\n`);
  };
  try {
    if (verb === "list") {
      const page = await connection.client.listTasks(
        ListTasksRequest.fromJSON({
          ...(options.context ? { contextId: options.context } : {}),
          ...(options.status ? { status: `TASK_STATE_${options.status.toUpperCase().replace("-", "_")}` } : {}),
          ...(options.pageSize ? { pageSize: options.pageSize } : {}),
          ...(options.pageToken ? { pageToken: options.pageToken } : {}),
          ...(options.since ? { statusTimestampAfter: options.since } : {}),
          includeArtifacts: fields.includes("stdout") || fields.includes("stderr"),
        }),
        connection.options,
      );
      // A page holds at most 100 tasks (CONTRACT: pageSize 1..100): a server that sends more is not believed.
      if (page.tasks.length > MAX_PAGE_TASKS)
        throw new ClientFailure(
          "infrastructure",
          `${connection.origin} sent ${page.tasks.length} tasks in one page of ListTasks, over the bound of ${MAX_PAGE_TASKS} a page may hold`,
        );
      if (json) print(page.tasks, true);
      else {
        io.stdout.write(table(page.tasks.map(summaryOf)));
        if (page.nextPageToken) say(`more: --page-token ${page.nextPageToken}`);
      }
      return EXIT.ok;
    }
    // The console and `tasks list` show 8 characters: a unique prefix names the task (src/client/task-prefix.ts).
    const id = await resolveTaskId(connection, args[0] ?? "");
    const get = () => connection.client.getTask(GetTaskRequest.fromJSON({ id }), connection.options);
    let task: Task;
    if (verb === "show") task = await get();
    else if (verb === "cancel")
      task = await connection.client.cancelTask(CancelTaskRequest.fromJSON({ id }), connection.options);
    else {
      const now = await get();
      const prompt = stateOf(now.status?.state) === "input-required" ? promptOf(now.status?.message) : undefined;
      if (!prompt) {
        say(`task ${id} has no open prompt: it is ${stateOf(now.status?.state)}`);
        return EXIT.failed;
      }
      await sendAnswerMessage(connection, id, prompt.id, args[1] ?? "");
      if (!json) say(`answered "${prompt.text}" with ${JSON.stringify(args[1] ?? "")}`);
      task = await get();
    }
    if (json) print([task], false);
    else if (verb === "show") io.stdout.write(describe(summaryOf(task)));
    else if (verb === "cancel") say(`task ${id} is ${stateOf(task.status?.state)}`);
    return EXIT.ok;
  } catch (error) {
    const failure = connection.failure(error);
    if (failure.kind === "refused") {
      say(failure.message);
      return EXIT.failed;
    }
    return printFailure(failure instanceof ClientFailure ? failure : classify(failure, undefined), options.server, io);
  }
}

/** The most tasks a ListTasks page may hold (the largest pageSize). */
const MAX_PAGE_TASKS = 100;

/** `tasks list` for a person: one line a task. */
function table(tasks: TaskSummary[]): string {
  const rows = [["ID", "STATE", "UPDATED", "EXIT", "MODE"]];
  for (const task of tasks)
    rows.push([
      task.id,
      task.state,
      task.updatedAt ?? "",
      task.exitCode === null ? "" : String(task.exitCode),
      task.mode ?? "",
    ]);
  const widths =
    rows[0]?.map((_, column) => rows.reduce((most, row) => Math.max(most, (row[column] ?? "").length), 0)) ?? [];
  return `${rows
    .map((row) =>
      printable(
        row
          .map((cell, i) => cell.padEnd(widths[i] ?? 0))
          .join("  ")
          .trimEnd(),
      ),
    )
    .join("\n")}\n`;
}

/** `tasks show` for a person: the state and envelope, then the output as it was written. */
function describe(task: TaskSummary): string {
  const lines = [
    `task ${task.id} · ${task.state}${task.statusText ? ` · ${task.statusText}` : ""}`,
    `context ${task.contextId}`,
  ];
  if (task.adapter) lines.push(`${task.mode} via ${task.adapter}${task.workingDir ? ` in ${task.workingDir}` : ""}`);
  if (task.exitCode !== null) lines.push(`exit code ${task.exitCode}`);
  if (task.failKind) lines.push(`fail kind ${task.failKind}${task.reason ? ` (${task.reason})` : ""}`);
  if (task.prompt) lines.push(`waiting for an answer to: ${task.prompt}`);
  // The output may hold escapes: each line is made printable, so it cannot drive the terminal.
  for (const stream of ["stdout", "stderr"] as const) {
    if (task[stream] === "") continue;
    lines.push(`--- ${stream}`, ...task[stream].replace(/\n$/, "").split("\n"));
  }
  return `${lines.map(printable).join("\n")}\n`;
}
