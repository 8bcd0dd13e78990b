// `adapter-command run --server URL` and `tasks watch`: a task on a server, shown with the same screen, plain
// pass-through and --json as a local run, ending in the same exit codes (CONTRACT section 1; docs/reference.md).
import { type Connection, connect, type ServerOptions } from "../client/connect.js";
import { ClientFailure, classify } from "../client/failures.js";
import { outboundOf, requestOf, wantsTextLine } from "../client/outbound.js";
import { RemoteTask } from "../client/remote-task.js";
import { resolveTaskId } from "../client/task-prefix.js";
import { parseJsonText } from "../core/envelope/envelope.js";
import type { Problem } from "../core/envelope/problems.js";
import { jsonWithoutC1, printable } from "../core/printable.js";
import type { TaskView } from "../core/task/task-record.js";
import { EXIT } from "../exit-codes.js";
import type { Io } from "../io/io.js";
import { paintFor } from "../ui/paint.js";
import { readInputFile } from "./input-file.js";
import { followInLines } from "./run.js";

export interface RemoteRunOptions extends ServerOptions {
  inputMode?: "text-line";
  answer: string[];
  json: boolean;
  tui: boolean;
  verbose?: boolean;
}

const sayTo = (io: Io) => (line: string) => io.stderr.write(`adapter-command: ${printable(line)}\n`);

export async function runRemote(file: string, options: RemoteRunOptions, io: Io): Promise<number> {
  const say = sayTo(io);
  const read = await readInputFile(file);
  if (!read.ok) {
    say(`cannot read ${file}: ${read.problem.message} [${read.problem.code}]`);
    return EXIT.usage;
  }
  const parsed = parseJsonText(read.text);
  const outbound = parsed.ok ? outboundOf(parsed.value, options.inputMode === "text-line") : undefined;
  if (!outbound) {
    const problem: Problem = parsed.ok
      ? { path: "", code: "no_envelope", message: "expected an envelope (or a message carrying one), found none" }
      : parsed.problem;
    return printRejection(new ClientFailure("rejected", `${file} holds no envelope to send`, [problem]), file, io);
  }
  return followRemote(options, io, { file, hitl: wantsTextLine(outbound) }, (task) => ({
    task: task.start(outbound),
    request: requestOf(outbound, file),
  }));
}

/** `tasks watch ID`: follows a task already on the server, as `run` would have. */
export async function watchRemote(taskId: string, options: RemoteRunOptions, io: Io): Promise<number> {
  // A tasks command: a task the server has not (no such id, a prefix naming none or several) exits 1, as for
  // `tasks show` (docs/reference.md, "A runtime at a URL").
  const what = { file: taskId, hitl: false, refusedExit: EXIT.failed };
  return followRemote(options, io, what, (task, connection) => ({
    task: resolveTaskId(connection, taskId).then((id) => task.watch(id)),
    request: `task ${taskId}`,
  }));
}

async function followRemote(
  options: RemoteRunOptions,
  io: Io,
  what: { file: string; hitl: boolean; refusedExit?: number },
  begin: (remote: RemoteTask, connection: Connection) => { task: Promise<TaskView>; request: string },
): Promise<number> {
  const say = sayTo(io);
  const useTui = options.tui && !options.json && io.stdout.isTTY === true && io.stdin.isTTY === true && !process.env.CI;
  const screen = useTui ? import("../ui/screen.js") : undefined;
  let connection: Awaited<ReturnType<typeof connect>>;
  try {
    connection = await connect(options, { hitl: what.hitl });
  } catch (error) {
    return printFailure(classify(error, undefined), what.file, io, options.json);
  }
  if (options.verbose) say(`connected over ${connection.binding} (A2A ${connection.version})`);
  // The server's words escaped for a person, its output cleaned for a terminal (docs/security.md, "The client").
  const terminal = options.json ? {} : { stdout: io.stdout.isTTY === true, stderr: io.stderr.isTTY === true };
  const remote = new RemoteTask(connection, options.verbose ? say : () => {}, {
    escapeWords: !options.json,
    terminal,
  });
  const report = (error: unknown) =>
    printFailure(connection.failure(error), what.file, io, options.json, what.refusedExit);
  let code: number;
  if (screen) {
    if (process.env.NO_COLOR) process.env.FORCE_COLOR = "0";
    const { showTask } = await screen;
    const start = async () => {
      const { task, request } = begin(remote, connection);
      return { task: await task, request: remote.request ?? request, runs: remote.runs };
    };
    code = await showTask(
      remote,
      start,
      { file: what.file, inputMode: options.inputMode, answers: options.answer },
      io,
      report,
    );
  } else {
    const attached = options.json
      ? (await import("../ui/json.js")).attachJson(remote, undefined, io.stdout)
      : (await import("../ui/plain.js")).attachPlain(remote, undefined, io.stdout, io.stderr);
    let task: TaskView;
    try {
      task = await begin(remote, connection).task;
    } catch (error) {
      attached.off();
      return report(error);
    }
    const noAnswerLeft = "canceling the task: a command on a server cannot be sent the end of its input";
    // No --workspace hint: the working directory is the server's, never a path to look for on this disk.
    code = await followInLines(remote, task, attached, { ...options, noAnswerLeft, workspace: undefined }, io);
  }
  if (remote.failure !== undefined && screen) say(remote.failure);
  return code;
}

/**
 * Says why nothing ran (or why following failed before the task was known), and picks the exit code: a refusal by
 * the server is `refusedExit` (for `run`, the server's failure).
 */
export async function printFailure(
  failure: ClientFailure,
  file: string,
  io: Io,
  json = false,
  refusedExit: number = EXIT.infrastructure,
): Promise<number> {
  if (failure.kind === "rejected") return printRejection(failure, file, io, json);
  if (json) io.stdout.write(`${jsonWithoutC1(JSON.stringify({ kind: failure.kind, message: failure.message }))}\n`);
  sayTo(io)(failure.message);
  return failure.kind === "usage" ? EXIT.usage : failure.kind === "refused" ? refusedExit : EXIT.infrastructure;
}

async function printRejection(failure: ClientFailure, file: string, io: Io, json = false): Promise<number> {
  if (json)
    io.stdout.write(
      `${jsonWithoutC1(JSON.stringify({ kind: "rejected", file, message: failure.message, errors: failure.problems }))}\n`,
    );
  const { formatVerdict, rejectionWords } = await import("./validate.js");
  io.stderr.write(
    `${formatVerdict({ file, valid: false, dispatch: null, errors: failure.problems, warnings: [] }, paintFor(io.stderr))}\n`,
  );
  io.stderr.write(
    `adapter-command: ${printable(rejectionWords(failure.message, failure.problems.length))}; nothing ran\n`,
  );
  return EXIT.rejected;
}
