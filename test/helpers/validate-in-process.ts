// `validate` in the test's own process: the command's function with its streams handed in (src/commands/
// validate-files.ts), as the binary calls it after parsing its arguments. The verdicts are the same; what it saves
// is a Node start per call. test/e2e/validate.test.ts keeps a few calls through the built binary for the wiring
// (argument parsing, usage errors, --help, stdin and the exit code of the process).
import { once } from "node:events";
import { statSync } from "node:fs";
import { PassThrough, Readable } from "node:stream";
import { validateFiles } from "../../src/commands/validate-files.js";
import type { CliResult } from "./cli.js";

/**
 * `validate [--json] [--workspace DIR] FILE…` with `input` on stdin, from the current directory; any other option
 * is an error of the test (such a call belongs to the binary).
 */
export async function validateInProcess(args: string[], options: { input?: string } = {}): Promise<CliResult> {
  const [command, ...rest] = args;
  if (command !== "validate") throw new Error(`validateInProcess runs validate only, not ${command}`);
  const flags: { json?: boolean; workspace?: string } = {};
  const files: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    if (arg === "--json") flags.json = true;
    else if (arg === "--workspace" && rest[i + 1] !== undefined && statSync(rest[i + 1] as string).isDirectory())
      flags.workspace = rest[++i] as string;
    else if (arg.startsWith("--")) throw new Error(`validateInProcess: ${arg} is for the binary (runCli)`);
    else files.push(arg);
  }
  const stdout = new PassThrough();
  const chunks: Buffer[] = [];
  stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
  const stdin = Readable.from([Buffer.from(options.input ?? "")]);
  const io = { stdin, stdout } as unknown as Parameters<typeof validateFiles>[2];
  const code = await validateFiles(files.length === 0 ? ["-"] : files, flags, io);
  stdout.end();
  await once(stdout, "end");
  const stdoutBytes = Buffer.concat(chunks);
  return { code, signal: null, stdout: stdoutBytes.toString("utf8"), stderr: "", stdoutBytes };
}
