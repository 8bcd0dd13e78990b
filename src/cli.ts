// The command-line program: the one place where the parts are wired together, and results become exit codes.
import { readFileSync, statSync } from "node:fs";
import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import type { ConformanceOptions } from "./commands/conformance.js";
import type { RunOptions } from "./commands/run.js";
import type { TasksOptions } from "./commands/tasks.js";
import { EXIT } from "./exit-codes.js";
import type { HttpServeOptions } from "./http/serve.js";
import type { ServeOptions } from "./stdio/serve.js";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
export const VERSION = pkg.version;

const positiveInt = (value: string) => {
  if (!/^[1-9]\d*$/.test(value))
    throw new InvalidArgumentError(`expected a whole number of at least 1, found "${value}"`);
  return Number(value);
};
/** A whole number from `min` to `max`, said with its digits grouped in the error ("1 to 1,000,000"). */
const wholeNumberIn = (min: number, max: number) => (value: string) => {
  if (!/^\d{1,16}$/.test(value) || Number(value) < min || Number(value) > max)
    throw new InvalidArgumentError(
      `expected a whole number from ${min.toLocaleString("en-US")} to ${max.toLocaleString("en-US")}, found "${value}"`,
    );
  return Number(value);
};
/** `--keep-tasks`: a million ended tasks fit in a state dir (docs/benchmarks.md, "How cost grows with kept tasks"). */
const keepTasks = wholeNumberIn(1, 1_000_000);
/** `--keep-bytes`: up to 1 TiB. */
const keepBytes = wholeNumberIn(1, 2 ** 40);
const port = (value: string) => {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError(`expected a port number from 0 to 65535, found "${value}"`);
  return Number(value);
};
/** `--instance`: a UUID of version 4 or 7, as the runtime's instance ids are (CONTRACT 9.2). */
const instance = (value: string) => {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i.test(value))
    throw new InvalidArgumentError(`expected a UUID of version 4 or 7, found "${value}"`);
  return value.toLowerCase();
};
const collect = (value: string, previous: string[]) => [...previous, value];
const directory = (value: string) => {
  let found: string;
  try {
    const stat = statSync(value, { throwIfNoEntry: false });
    if (stat?.isDirectory()) return value;
    found = stat ? "a file" : "nothing";
  } catch (error) {
    found = (error as NodeJS.ErrnoException).code ?? (error as Error).message; // ENOTDIR, ELOOP, EACCES
  }
  throw new InvalidArgumentError(`expected a directory, found ${found} at "${value}"`);
};

/** `--workspace`, whose default is said in words: the path of the moment means little in --help. */
const workspaceOption = () =>
  new Option("--workspace <dir>", "the directory that plays the sandbox's /workspace")
    .argParser(directory)
    .default(process.cwd(), "the current directory");

// Type-only imports: the commands themselves are loaded when they run, so each stays quick to start.
type RunFlags = Omit<RunOptions, "json"> & { json?: boolean };
type RemoteFlags = { server?: string; tokenFile?: string; binding?: "jsonrpc" | "rest"; trustOrigin?: string[] };
/** `--trust-origin`: another origin a server's card may name, which then gets requests and the token too. */
const trustOriginOption = (prefix: string) =>
  new Option(
    "--trust-origin <url>",
    `${prefix}also send requests and the token to this origin when the card names it (repeatable)`,
  )
    .argParser(collect)
    .default([], "none");
type ConformanceFlags = ConformanceOptions;
type TasksFlags = TasksOptions & { server: string; json?: string | boolean };
type ServeFlags = Omit<ServeOptions, "version"> &
  Omit<HttpServeOptions, "version"> & { stdio?: boolean; http?: boolean };

/** Options that belong to one binding only; given to the other, they are a usage error. */
const STDIO_ONLY = ["maxLineBytes"];
const HTTP_ONLY = ["host", "port", "grpcPort", "tokenFile", "auth", "allowOrigin", "maxBodyBytes", "quiet"];

export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const io = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  const program = new Command()
    .name("adapter-command")
    .description(
      "Validate, run and serve adapter-command/v1 envelopes: bounded adapter commands for A2A orchestrators.",
    )
    .version(VERSION, "-V, --version")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => process.stdout.write(text),
      writeErr: (text) => process.stderr.write(text),
    })
    .showHelpAfterError("(run adapter-command --help for usage)");

  program
    .command("validate")
    .description("check envelope files the way the runtime will; print every problem")
    .argument(
      "[file...]",
      "JSON files (send params, a message or a bare envelope), directories (their *.json, recursively) or - (stdin; the default when stdin is a pipe)",
    )
    .option("--json", "one JSON object per file, on stdout")
    .option("--workspace <dir>", "also check the working directory and files against this workspace", directory)
    .action(async (files: string[], flags: { json?: boolean; workspace?: string }) => {
      // `validate < file` and `… | validate`: a pipe with no file named is the file.
      if (files.length === 0 && process.stdin.isTTY) {
        process.stderr.write(
          "adapter-command validate: expected a file, a directory or - (stdin), found none\n(run adapter-command validate --help for usage)\n",
        );
        code = EXIT.usage;
        return;
      }
      const { validateFiles } = await import("./commands/validate-files.js");
      code = await validateFiles(files.length === 0 ? ["-"] : files, flags, io);
    });

  program
    .command("run")
    .description("validate a file, run it, and show the task live")
    .argument("<file>", "a JSON file: send params, a message or a bare envelope")
    .addOption(workspaceOption())
    .addOption(
      new Option("--input-mode <mode>", "detect prompts even without input_mode in the envelope").choices([
        "text-line",
      ]),
    )
    .addOption(
      new Option("--answer <text>", "an answer for the next prompt (repeatable; then stdin lines)")
        .argParser(collect)
        .default([], "none"),
    )
    .option("--json", "print the task's A2A events as NDJSON instead of the output")
    .option("--no-tui", "no interactive UI, even in a terminal")
    .option("--settle-ms <ms>", "quiet time before a prompt is raised (default: 150)", positiveInt)
    .option("--max-output-bytes <n>", "output the task record keeps (default: 8 MiB)", positiveInt)
    .option("--verbose", "also say which containment guard keeps the command's processes in check")
    .option("--server <url>", "run it on the A2A runtime at this URL instead of here (docs/reference.md)")
    .option("--token-file <file>", "--server: the bearer token's file (else $ADAPTER_COMMAND_TOKEN)")
    .addOption(
      new Option("--binding <binding>", "--server: use this binding of the card (default: the card's order)").choices([
        "jsonrpc",
        "rest",
      ]),
    )
    .addOption(trustOriginOption("--server: "))
    .action(async (file: string, flags: RunFlags & RemoteFlags, command: Command) => {
      const given = (names: string[]) => names.filter((name) => command.getOptionValueSource(name) === "cli");
      if (flags.server === undefined) {
        if (given(["tokenFile", "binding", "trustOrigin"]).length > 0)
          return remoteUsage("run", "--token-file, --binding and --trust-origin need --server");
        const { runCommand } = await import("./commands/run.js");
        code = await runCommand(file, { ...flags, json: flags.json === true }, io);
        return;
      }
      const local = given(["workspace", "settleMs", "maxOutputBytes"]);
      if (local.length > 0)
        return remoteUsage("run", "--workspace, --settle-ms and --max-output-bytes are the server's with --server");
      const { runRemote } = await import("./commands/run-remote.js");
      code = await runRemote(file, { ...flags, server: flags.server, json: flags.json === true }, io);
    });

  // A task on a server: the A2A task methods from the terminal (docs/reference.md, "tasks").
  const remoteUsage = (name: string, text: string) => {
    process.stderr.write(`adapter-command ${name}: ${text}\n(run adapter-command ${name} --help for usage)\n`);
    code = EXIT.usage;
  };
  const tasks = program.command("tasks").description("list, show, follow, answer and cancel tasks on an A2A runtime");
  const serverOptions = (sub: Command) =>
    sub
      .requiredOption("--server <url>", "the A2A runtime's URL")
      .option("--token-file <file>", "the bearer token's file (else $ADAPTER_COMMAND_TOKEN)")
      .addOption(new Option("--binding <binding>", "use this binding of the card").choices(["jsonrpc", "rest"]))
      .addOption(trustOriginOption(""));
  const tasksAction =
    (verb: "list" | "show" | "answer" | "cancel") =>
    async (...args: unknown[]) => {
      const command = args.at(-1) as Command;
      const flags = command.opts() as TasksFlags;
      const { tasksCommand } = await import("./commands/tasks.js");
      code = await tasksCommand(verb, args.slice(0, -2) as string[], flags, io);
    };
  serverOptions(tasks.command("list").description("list tasks, newest first (the filters of ListTasks)"))
    .option("--context <id>", "only tasks of this context")
    .option("--status <state>", "only tasks in this state (working, input-required, completed, failed, canceled…)")
    .option("--page-size <n>", "tasks a page (1 to 100; default 50)", positiveInt)
    .option("--page-token <token>", "the page after the one that gave this token")
    .option("--since <time>", "only tasks whose status changed after this RFC 3339 time")
    .option("--json [fields]", "JSON: every field, or only these (comma-separated), of each task")
    .action(tasksAction("list"));
  serverOptions(tasks.command("show").description("one task: its state, envelope and output").argument("<id>"))
    .option("--json [fields]", "JSON: every field, or only these (comma-separated)")
    .action(tasksAction("show"));
  serverOptions(tasks.command("watch").description("follow one task live, as run shows it").argument("<id>"))
    .option("--json", "print the task's A2A events as NDJSON instead of the output")
    .option("--no-tui", "no interactive UI, even in a terminal")
    .addOption(
      new Option("--answer <text>", "an answer for the next prompt (repeatable; then stdin lines)")
        .argParser(collect)
        .default([], "none"),
    )
    .action(async (id: string, flags: TasksFlags & { answer: string[]; tui: boolean }) => {
      const { watchRemote } = await import("./commands/run-remote.js");
      code = await watchRemote(id, { ...flags, json: flags.json === true }, io);
    });
  serverOptions(
    tasks.command("answer").description("answer the task's open prompt").argument("<id>").argument("<text>"),
  )
    .option("--json [fields]", "JSON: the task after the answer")
    .action(tasksAction("answer"));
  serverOptions(tasks.command("cancel").description("cancel the task").argument("<id>"))
    .option("--json [fields]", "JSON: the task after the cancel")
    .action(tasksAction("cancel"));

  program
    .command("serve")
    .description("serve A2A backed by the same dispatcher: JSON-RPC over stdio (--stdio), or over HTTP (--http)")
    .option("--stdio", "speak JSON-RPC on stdin/stdout")
    .option("--http", "serve A2A over HTTP: JSON-RPC and HTTP+JSON, streams as SSE")
    .addOption(workspaceOption())
    .option(
      "--instance <uuid>",
      "this runtime's instance id, a UUID v4 or v7 (default: the state dir's, else a new one)",
      instance,
    )
    .option("--max-concurrent <n>", "commands running at once; more wait in submitted", positiveInt, 4)
    .option("--state-dir <dir>", "keep tasks in <dir>/state.db (SQLite) so they survive a restart; one runtime per dir")
    .option(
      "--keep-tasks <n>",
      "ended tasks kept, the oldest forgotten first (1 to 1,000,000; default: 500)",
      keepTasks,
    )
    .option(
      "--keep-bytes <n>",
      "bytes of output and messages the kept ended tasks hold together (default: 268435456, 256 MiB)",
      keepBytes,
    )
    .option("--settle-ms <ms>", "quiet time before a prompt is raised (default: 150)", positiveInt)
    .option("--max-output-bytes <n>", "output each task record keeps (default: 8 MiB)", positiveInt)
    .option("--require-extensions", "refuse requests that do not activate runtime/v1 (and idempotency/v1 on sends)")
    .option(
      "--idempotency-ttl-seconds <s>",
      "how long a send's first answer is kept for retries (default: 86400)",
      positiveInt,
    )
    .option("--max-line-bytes <n>", "--stdio: the longest request line accepted (default: 1 MiB)", positiveInt)
    .option("--host <host>", "--http: the address to listen on", "127.0.0.1")
    .option("--port <port>", "--http: the port to listen on; 0 picks a free one", port, 41241)
    .option(
      "--grpc-port <port>",
      "--http: also serve A2A 1.0 over gRPC on this port of the same host; 0 picks a free one (default: no gRPC)",
      port,
    )
    .option(
      "--token-file <file>",
      "--http: read the bearer token from this file (else $ADAPTER_COMMAND_TOKEN, else a new one)",
    )
    .option("--no-auth", "--http: accept requests without a token (loopback hosts only)")
    .addOption(
      new Option("--allow-origin <origin>", "--http: let web pages from this origin call (repeatable; CORS)")
        .argParser(collect)
        .default([], "none"),
    )
    .addOption(
      new Option("--max-body-bytes <n>", "--http: the largest request body accepted")
        .argParser(positiveInt)
        .default(1048576, "1 MiB"),
    )
    .addOption(
      new Option(
        "--allow-webhook-host <host>",
        "let push notifications go to this host name or address, besides loopback (repeatable)",
      )
        .argParser(collect)
        .default([], "none"),
    )
    .option("--push-timeout-ms <ms>", "how long one push delivery may take (default: 10000)", positiveInt)
    .option(
      "--signing-key <file>",
      "sign the agent cards with this Ed25519 or P-256 private key, PEM or JWK (default: the state dir's, else a new one)",
    )
    .option("--quiet", "--http: no access line per request on stderr")
    .action(async (flags: ServeFlags, command: Command) => {
      const given = (names: string[]) => names.filter((name) => command.getOptionValueSource(name) === "cli");
      const usage = (text: string) => {
        process.stderr.write(`adapter-command serve: ${text}\n(run adapter-command serve --help for usage)\n`);
        code = EXIT.usage;
      };
      if (flags.stdio === flags.http) return usage("expected exactly one of --stdio and --http");
      const foreign = given(flags.stdio ? HTTP_ONLY : STDIO_ONLY);
      if (foreign.length > 0) {
        const flag = (name: string) =>
          `--${name === "auth" ? "no-auth" : name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
        return usage(`${foreign.map(flag).join(", ")} cannot be used with --${flags.stdio ? "stdio" : "http"}`);
      }
      if (flags.stdio) {
        const { serveStdio } = await import("./stdio/serve.js");
        code = await serveStdio({ ...flags, version: VERSION }, io);
      } else {
        const { serveHttp } = await import("./http/serve.js");
        code = await serveHttp({ ...flags, version: VERSION }, io);
      }
    });

  // The conformance suite (docs/reference.md, "conformance").
  const conformance = program
    .command("conformance")
    .description("check an A2A runtime against the scenarios of A2A 1.0.1 and the runtime's extension specs")
    .option("--server <url>", "the runtime's URL (its agent card is read from there)")
    .option("--self", "start this tool's own serve --http, as the runtime is configured, and check it")
    .option("--token-file <file>", "the bearer token's file (else $ADAPTER_COMMAND_TOKEN)")
    .addOption(
      new Option("--binding <binding>", "the binding to test (default: every one the card declares)")
        .choices(["jsonrpc", "rest", "grpc", "all"])
        .default("all"),
    )
    .addOption(
      new Option("--only <prefix>", "only scenarios whose id starts with this (repeatable)")
        .argParser(collect)
        .default([], "all"),
    )
    .option("--json", "one JSON document with every result instead of the lines")
    .option("--junit <file>", "also write the results as JUnit XML")
    .option("--restart-command <cmd>", "an executable (no shell, no arguments) that restarts the runtime (IDEM-AC-4)")
    .option("--max-wait <seconds>", "longest wait for a state, a restart or a TTL (IDEM-AC-3)", positiveInt, 30)
    .action(async (flags: ConformanceFlags) => {
      const { conformanceCommand } = await import("./commands/conformance.js");
      code = await conformanceCommand(flags, io);
    });
  conformance
    .command("init")
    .description("write the workspace the scenarios run on: the runner and its request files")
    .argument("<dir>", "the workspace directory (created when missing)")
    .action(async (dir: string) => {
      const { conformanceInit } = await import("./commands/conformance.js");
      code = await conformanceInit(dir, io);
    });

  program
    .command("schema")
    .description("print the JSON Schema of input files (send params, a message or a bare envelope)")
    .option("--envelope", "the schema of a bare envelope instead")
    .action(async (flags: { envelope?: boolean }) => {
      const { envelopeJsonSchema, inputJsonSchema } = await import("./a2a/input-schema.js");
      const schema = flags.envelope ? envelopeJsonSchema() : inputJsonSchema();
      process.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
    });

  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    throw error;
  }
  return code;
}
