// Every example in the README runs as printed against the bundled workspace (issue: a newcomer's first hour). The
// code blocks are read from README.md in order and run in a temporary copy of examples/, where they write their
// files (the token): shell blocks as argv arrays through a small parser (test/helpers/readme-blocks.ts; never a
// shell), `console` blocks with their printed output compared, `json` blocks through `validate`, the TypeScript
// snippet with tsx in a CommonJS project as `npm init -y` makes one. A marker before a block says what else to
// expect (`<!-- readme-test: exit 1 -->`, a server to start in the background, a key to type). The README's
// `node bin/adapter-command.js` is the built bin; its port 41241 becomes the one the server got (`--port 0`), so
// runs on a shared machine cannot collide. And the README stays a front door: at most 200 lines.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { BIN, ROOT } from "../helpers/cli.js";
import {
  type Block,
  type CommandLine,
  parseShell,
  readmeBlocks,
  type Stage,
  wordText,
} from "../helpers/readme-blocks.js";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const BLOCKS = readmeBlocks(README);
const README_PORT = "41241";
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");
const COMMAND_MS = 60_000;
const NO_CURL =
  BLOCKS.some((block) => /^\s*curl /m.test(block.text)) && !onPath("curl") ? "curl is not installed" : undefined;

function onPath(name: string): boolean {
  return (process.env.PATH ?? "").split(":").some((dir) => {
    try {
      return readFileSync(join(dir, name)).length > 0;
    } catch {
      return false;
    }
  });
}

/** What the README promises some examples print, beyond their exit code. */
const PRINTS: Array<[RegExp, RegExp]> = [
  [/^npm start/m, /plan: 3 steps, nothing changed/],
  [/serve --stdio/, /"state":"completed"/],
  [/message:send/, /TASK_STATE_COMPLETED/],
  [/@a2a-js\/sdk/, /^TASK_STATE_COMPLETED\nPlan for cycle 005:\n[\s\S]*plan: 3 steps, nothing changed\n$/],
  [/run --server/, /confirmed/],
  [/tasks list/, /completed/],
];

interface Ran {
  code: number | null;
  output: string;
  stdout: string;
}

describe("the README's examples, run as printed", { timeout: 300_000 }, () => {
  let work: string;
  let port = README_PORT;
  const servers: ChildProcess[] = [];

  before(() => {
    work = mkdtempSync(join(tmpdir(), "adapter-command-readme-"));
    cpSync(join(ROOT, "examples"), join(work, "examples"), { recursive: true });
  });
  after(async () => {
    for (const server of servers) {
      if (server.exitCode === null && server.signalCode === null) {
        const gone = new Promise((resolve) => server.once("exit", resolve));
        server.kill("SIGTERM");
        await gone;
      }
    }
    rmSync(work, { recursive: true, force: true });
  });

  /** The README's words for a program, as this machine runs them. */
  function argvOf(stage: Stage): string[] {
    const read = (file: string) => readFileSync(join(work, file), "utf8");
    let argv = stage.argv.map((word) => wordText(word, read).replaceAll(`:${README_PORT}`, `:${port}`));
    if (argv[0] === "npm" && argv[1] === "start" && argv.length === 2) {
      const script = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: { start: string } })
        .scripts.start;
      const [[only] = []] = parseShell(script)[0] ?? [];
      assert.ok(only && parseShell(script).length === 1, `npm start is one command: ${script}`);
      argv = only.argv.map((word) => wordText(word, read));
    }
    if (argv[0] === "node" && argv[1] === "bin/adapter-command.js") argv = [process.execPath, BIN, ...argv.slice(2)];
    else if (argv[0] === "node") argv = [process.execPath, ...argv.slice(1)];
    // The server takes a free port, and the examples after it talk to that one.
    if (argv[1] === BIN && argv[2] === "serve" && argv.includes("--http") && !argv.includes("--port"))
      argv.splice(argv.indexOf("--http") + 1, 0, "--port", "0");
    return argv;
  }

  function spawnStage(stage: Stage, cwd: string, stdin: "pipe" | "ignore"): ChildProcess {
    const [file, ...args] = argvOf(stage);
    assert.ok(file, "a command");
    const stdout = stage.stdoutTo === undefined ? "pipe" : openSync(join(cwd, stage.stdoutTo), "w", 0o600);
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
    delete env.ADAPTER_COMMAND_TOKEN;
    return spawn(file, args, { cwd, env, stdio: [stdin, stdout, "pipe"] });
  }

  /** Runs one pipeline (`a | b`), each stage's stdout into the next one's stdin; resolves when all have ended. */
  async function runPipeline(pipeline: Stage[], cwd: string, input: string | undefined): Promise<Ran> {
    const children = pipeline.map((stage, n) =>
      spawnStage(stage, cwd, n > 0 || input !== undefined ? "pipe" : "ignore"),
    );
    children.forEach((child, n) => {
      const next = children[n + 1];
      if (next?.stdin) child.stdout?.pipe(next.stdin);
    });
    const first = children[0] as ChildProcess;
    if (input !== undefined) first.stdin?.end(input);
    const last = children.at(-1) as ChildProcess;
    let output = "";
    let stdout = "";
    last.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk;
      output += chunk;
    });
    for (const child of children) child.stderr?.on("data", (chunk: Buffer) => (output += chunk));
    const timer = setTimeout(() => {
      for (const child of children) child.kill("SIGKILL");
    }, COMMAND_MS);
    const codes = await Promise.all(
      children.map((child) => new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)))),
    );
    clearTimeout(timer);
    // As with `set -o pipefail`: a stage that failed fails the line.
    return { code: codes.find((code) => code !== 0) ?? 0, output, stdout };
  }

  async function runLine(line: CommandLine, cwd: string, input?: string): Promise<Ran> {
    let ran: Ran = { code: 0, output: "", stdout: "" };
    for (const pipeline of line) {
      ran = await runPipeline(pipeline, cwd, input);
      if (ran.code !== 0) break;
    }
    return ran;
  }

  /** Starts a server in the background; resolves once its output holds `readyAt`, with the port it listens on. */
  async function startServer(line: CommandLine, readyAt: string): Promise<void> {
    assert.equal(line.length, 1, "a server is one command");
    assert.equal(line[0]?.length, 1, "a server is one command");
    const server = spawnStage(line[0]?.[0] as Stage, work, "ignore");
    servers.push(server);
    let stdout = "";
    let output = "";
    await new Promise<void>((resolve, reject) => {
      const look = () => {
        if (!output.includes(readyAt)) return;
        const url = /"url":"http:\/\/[^"]*:(\d+)"/.exec(stdout);
        if (url) port = url[1] as string;
        resolve();
      };
      server.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk;
        output += chunk;
        look();
      });
      server.stderr?.on("data", (chunk: Buffer) => {
        output += chunk;
        look();
      });
      server.once("exit", (code) => reject(new Error(`the server exited (${code}) before "${readyAt}":\n${output}`)));
    });
  }

  /** The SDK snippet as a user saves it: a .ts file in an `npm init -y` project, run with tsx. */
  async function runTypeScript(block: Block): Promise<Ran> {
    const project = join(work, "my-client");
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, "package.json"),
      `${JSON.stringify({ name: "my-client", version: "1.0.0", main: "index.js", type: "commonjs" }, null, 2)}\n`,
    );
    symlinkSync(join(ROOT, "node_modules"), join(project, "node_modules"), "dir");
    writeFileSync(join(project, "first-task.ts"), block.text.replaceAll(`:${README_PORT}`, `:${port}`));
    const stage: Stage = {
      argv: [[{ text: "node" }], [{ text: TSX }], [{ text: "first-task.ts" }], [{ text: join(work, "token") }]],
    };
    return runPipeline([stage], project, undefined);
  }

  it("is a front door of at most 200 lines", () => {
    const lines = README.trimEnd().split("\n").length;
    assert.ok(lines <= 200, `README.md has ${lines} lines; at most 200 (the rest belongs in docs/)`);
  });

  it("links only to files that exist", () => {
    const links = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((match) => match[1] as string);
    const local = links.filter((link) => !/^https?:/.test(link));
    assert.ok(local.includes("docs/getting-started.md"), local.join(", "));
    for (const link of local) assert.ok(existsSync(join(ROOT, link)), `README.md links to ${link}, which is not there`);
  });

  it("has the examples this test runs", () => {
    const langs = BLOCKS.filter((block) => !block.marker.skip).map((block) => block.lang);
    for (const lang of ["sh", "json", "ts", "console"]) assert.ok(langs.includes(lang), `a ${lang} block`);
    assert.ok(
      BLOCKS.some((block) => block.marker.readyAt !== undefined),
      "a server block",
    );
  });

  for (const block of BLOCKS) {
    const first = block.text.split("\n").find((line) => line.trim() !== "" && !line.startsWith("//")) ?? "";
    const name = `line ${block.line}: ${block.lang} ${first.slice(0, 80)}`;
    // A picture of the screen, or a block marked skip, is no example: it gets no test (rather than a skipped one).
    const runnable = ["sh", "console", "json", "ts"].includes(block.lang) && !block.marker.skip;
    if (!runnable) continue;
    const skip = block.lang === "sh" && /curl /.test(block.text) ? NO_CURL : undefined;
    it(name, { skip }, async () => {
      const expectPrints = (text: string, output: string) => {
        for (const [where, what] of PRINTS)
          if (where.test(text)) assert.match(output, what, `${text}\nprinted:\n${output}`);
      };
      const expected = block.marker.exit ?? 0;
      if (block.lang === "json") {
        const validated = await runLine(
          parseShell("node bin/adapter-command.js validate --workspace examples/workspace -")[0] ?? [],
          work,
          block.text,
        );
        assert.equal(validated.code, 0, `validate refused the README's JSON:\n${validated.output}`);
        assert.doesNotMatch(validated.output, /warning/, "the files it names are in the bundled workspace");
        return;
      }
      if (block.lang === "ts") {
        const ran = await runTypeScript(block);
        assert.equal(ran.code, 0, ran.output);
        expectPrints(block.text, ran.stdout);
        return;
      }
      if (block.lang === "console") {
        // `$ command` lines, each followed by what it prints.
        const parts = block.text.split(/^\$ /m).filter((part) => part !== "");
        assert.ok(parts.length > 0 && block.text.startsWith("$ "), "a console block starts with a $ line");
        for (const part of parts) {
          const [command = "", ...printed] = part.split("\n");
          const ran = await runLine(parseShell(command)[0] ?? [], work);
          assert.equal(ran.code, expected, `${command} exited ${ran.code}:\n${ran.output}`);
          assert.equal(ran.stdout.trimEnd(), printed.join("\n").trimEnd(), `what ${command} prints`);
        }
        return;
      }
      const lines = parseShell(block.text).filter((line) => {
        const text = line
          .flat()
          .map((stage) => stage.argv.map((word) => wordText(word, () => "")).join(" "))
          .join(" ");
        return block.marker.only === undefined || text.startsWith(block.marker.only);
      });
      assert.ok(lines.length > 0, "commands to run");
      if (block.marker.readyAt !== undefined) {
        await startServer(lines[0] as CommandLine, block.marker.readyAt);
        return;
      }
      if (block.marker.exit !== undefined) assert.equal(lines.length, 1, "exit N is said of a single command");
      for (const line of lines) {
        const ran = await runLine(line, work, block.marker.stdin);
        const text = line
          .flat()
          .map((stage) => stage.argv.map((word) => wordText(word, () => "…")).join(" "))
          .join(" | ");
        assert.equal(ran.code, expected, `${text} exited ${ran.code}:\n${ran.output}`);
        expectPrints(text, ran.output);
      }
    });
  }
});
