// `adapter-command validate` and `schema` (CONTRACT sections 1 and 2). What the verdicts say is checked with the
// command's function in this process (validateIn, test/helpers/validate-in-process.ts); the built binary over real
// pipes is kept for what only the process does: parsing arguments, usage errors, --help, --version, stdin, a FIFO,
// another current directory, a crash it must not have, its exit code, and agreeing with `run`.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Ajv2020 } from "ajv/dist/2020.js";
import { ADAPTER_URI as URI } from "../../src/core/uris.js";
import { AT_ONCE, EXAMPLES, ROOT, runCli, startCli } from "../helpers/cli.js";
import { envelopeOfFile } from "../helpers/examples.js";
import { HAS_TMUX, Tmux } from "../helpers/tmux.js";
import { validateInProcess as validateIn } from "../helpers/validate-in-process.js";

const ESCAPED_URI = "https:~1~1agentic-sandbox.aiwg.io~1extensions~1adapter-command~1v1";
const RUNNER = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";

type Json = Record<string, unknown>;
const isRecord = (x: unknown): x is Json => typeof x === "object" && x !== null && !Array.isArray(x);

const VALID = readdirSync(join(EXAMPLES, "envelopes"))
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => `examples/envelopes/${name}`);
const INVALID = readdirSync(join(EXAMPLES, "envelopes/invalid"))
  .filter((name) => name.endsWith(".json"))
  .sort()
  .map((name) => `examples/envelopes/invalid/${name}`);

const temp = mkdtempSync(join(tmpdir(), "adapter-command-validate-"));
after(() => rmSync(temp, { recursive: true, force: true }));
let counter = 0;
/** Writes a JSON file outside the repository and returns its path. */
function tempFile(value: unknown): string {
  const path = join(temp, `file-${++counter}.json`);
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

const sendParams = (envelope: Json): Json => ({
  message: { kind: "message", role: "user", parts: [{ kind: "text", text: "hi" }], metadata: { [URI]: envelope } },
});
const envelope = (request: string, over: Json = {}): Json => ({
  adapter: "sandbox-agent-runner",
  mode: "plan",
  command: ["node", RUNNER, "--request", request],
  ...over,
});

interface Verdict {
  file: string;
  valid: boolean;
  dispatch?: string;
  errors: Array<{ path: string; code: string; message: string; line?: number; column?: number }>;
  warnings: Array<{ path: string; code: string; message: string }>;
  envelope?: Json;
}

/** Every stdout line is one JSON object. */
function verdicts(stdout: string): Verdict[] {
  assert.ok(stdout.endsWith("\n"), `stdout ends with a newline: ${JSON.stringify(stdout)}`);
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line) => {
      const value = JSON.parse(line) as unknown;
      assert.ok(isRecord(value), line);
      return value as unknown as Verdict;
    });
}

const keysOf = (value: object) => Object.keys(value).sort();
const codes = (problems: Array<{ code: string }>) => problems.map((p) => p.code);

describe("validate: exit codes", () => {
  it("the examples hold valid and invalid files", () => {
    assert.ok(VALID.length >= 4, VALID.join(", "));
    assert.ok(INVALID.length >= 4, INVALID.join(", "));
  });

  it("exits 0 on all the valid examples, one line each", async () => {
    const result = await runCli(["validate", "--workspace", "examples/workspace", ...VALID]);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines.length, VALID.length, result.stdout);
    VALID.forEach((file, i) => {
      assert.match(lines[i] ?? "", /^valid\s/);
      assert.ok(lines[i]?.includes(file), lines[i]);
    });
    assert.ok(!result.stdout.includes("\u001b["), "no colours when NO_COLOR is set and stdout is a pipe");
  });

  for (const file of INVALID) {
    it(`exits 1 on ${file}`, async () => {
      const result = await validateIn(["validate", file]);
      assert.equal(result.code, 1, result.stdout + result.stderr);
      assert.match(result.stdout, /^invalid\s/);
      assert.match(result.stdout, /error/);
    });
  }

  it("exits 1 when any file of several is invalid, and still reports them all", async () => {
    const files = [VALID[0] ?? "", "examples/envelopes/invalid/unknown-key.json", VALID[1] ?? ""];
    const result = await validateIn(["validate", ...files]);
    assert.equal(result.code, 1);
    const heads = result.stdout.split("\n").filter((line) => /^(valid|invalid)\s/.test(line));
    assert.deepEqual(
      heads.map((line) => line.split(/\s+/)[0]),
      ["valid", "invalid", "valid"],
    );
    files.forEach((file, i) => {
      assert.ok(heads[i]?.includes(file), heads[i]);
    });
  });

  it("without a file argument and stdin a pipe, reads the pipe (validate < file)", async () => {
    const input = readFileSync(join(ROOT, "examples/envelopes/plan.json"), "utf8");
    const result = await runCli(["validate", "--workspace", "examples/workspace"], { input });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.equal(result.stdout, "valid    - (plan via sandbox-agent-runner)\n");
  });

  it("exits 2 without a file argument when stdin is a terminal (nothing to read)", {
    skip: !HAS_TMUX && "tmux is not installed",
  }, async () => {
    const server = new Tmux("validate");
    try {
      server.binary("no-file", ["validate"], { columns: 200 });
      const screen = await server.waitFor("no-file", "EXIT=", (text) => /^EXIT=\d+/m.test(text));
      assert.match(screen, /expected a file, a directory or - \(stdin\), found none/);
      assert.match(screen, /^EXIT=2$/m);
    } finally {
      server.kill();
    }
  });

  it("exits 2 on an unknown option", async () => {
    const result = await runCli(["validate", "--bogus", VALID[0] ?? ""]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--bogus/);
    assert.equal(result.stdout, "");
  });

  it("exits 2 when --workspace has no value", async () => {
    const result = await runCli(["validate", "--workspace"]);
    assert.equal(result.code, 2);
  });

  it("--help exits 0 and names the commands", async () => {
    const result = await runCli(["--help"]);
    assert.equal(result.code, 0, result.stderr);
    for (const command of ["validate", "run", "serve", "schema"]) assert.match(result.stdout, new RegExp(command));
  });

  it("validate --help exits 0 and names its options", async () => {
    const result = await runCli(["validate", "--help"]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /--json/);
    assert.match(result.stdout, /--workspace/);
  });

  it("serve --help and run --help say each default once, in words, never this machine's path", async () => {
    for (const command of ["serve", "run"]) {
      const result = await runCli([command, "--help"]);
      assert.equal(result.code, 0, result.stderr);
      // One entry per option: its first line and the indented lines that continue it.
      const entries = result.stdout.split(/\n(?= {2}-)/).filter((entry) => entry.trimStart().startsWith("-"));
      for (const entry of entries) {
        const text = entry.replace(/\s+/g, " ");
        assert.ok((text.match(/\(default/g) ?? []).length <= 1, `${command}: ${text}`);
        assert.doesNotMatch(text, /default: \[\]/, `${command}: ${text}`);
      }
      assert.match(result.stdout.replace(/\s+/g, " "), /--workspace <dir> .* \(default: the current directory\)/);
    }
  });

  it("--version exits 0 and prints the package version", async () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string };
    const result = await runCli(["--version"]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), pkg.version);
  });
});

// Each test reads and writes its own files: the tests of a group run at once.
describe("validate: human output", { concurrency: AT_ONCE }, () => {
  // The full JSON Pointer stays in --json ("errors carry path, code and message"); a person reads the field's
  // path and where it is in the file.
  it("prints every problem with its field as a readable path, its line:column and code", async () => {
    const result = await runCli(["validate", "examples/envelopes/invalid/bad-timeout.json"]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^ {2}error {3}10:9 envelope\.mode: .*\[invalid_value\]$/m);
    assert.match(result.stdout, /^ {2}error {3}17:9 envelope\.timeout_seconds: .*\[wrong_type\]$/m);
    assert.ok(!result.stdout.includes(ESCAPED_URI), result.stdout);
    assert.match(result.stdout, /"Plan"/);
    assert.match(result.stdout, /"300"/);
  });

  it("a JSON syntax error shows line:column", async () => {
    const result = await validateIn(["validate", "examples/envelopes/invalid/syntax-error.json"]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /\b4:3\b/);
    assert.match(result.stdout, /json_syntax/);
  });

  it("an unreadable file is invalid with file_unreadable", async () => {
    const result = await validateIn(["validate", join(temp, "does-not-exist.json")]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^invalid\s/);
    assert.match(result.stdout, /file_unreadable/);
  });

  it("warnings are printed as warnings", async () => {
    const file = tempFile(sendParams(envelope(".aiwg/ops/runs/does-not-exist.json")));
    const result = await validateIn(["validate", "--workspace", "examples/workspace", file]);
    assert.equal(result.code, 0, result.stdout);
    assert.match(result.stdout, /^valid\s/);
    assert.match(result.stdout, /warning.*request_missing/);
  });
});

describe("validate --json", { concurrency: AT_ONCE }, () => {
  it("one object per file, in order, with exactly the contract's keys", async () => {
    const files = [
      "examples/envelopes/plan.json",
      "examples/envelopes/echo.json",
      "examples/envelopes/invalid/bad-timeout.json",
      "examples/envelopes/bare-envelope.json",
      "examples/envelopes/invalid/echo-no-text.json",
      "examples/envelopes/assess.json",
    ];
    const result = await validateIn(["validate", "--json", ...files]);
    assert.equal(result.code, 1);
    const out = verdicts(result.stdout);
    assert.deepEqual(
      out.map((v) => v.file),
      files,
    );
    assert.deepEqual(
      out.map((v) => [v.valid, v.dispatch]),
      [
        [true, "adapter-command"],
        [true, "echo"],
        [false, "adapter-command"],
        [true, "adapter-command"],
        [false, "echo"],
        [true, "adapter-command"],
      ],
    );
    const base = ["dispatch", "errors", "file", "valid", "warnings"];
    for (const verdict of out) {
      const expected = verdict.valid && verdict.dispatch === "adapter-command" ? [...base, "envelope"].sort() : base;
      assert.deepEqual(keysOf(verdict), expected, JSON.stringify(verdict));
      assert.ok(Array.isArray(verdict.errors) && Array.isArray(verdict.warnings));
      assert.equal(verdict.valid, verdict.errors.length === 0);
    }
  });

  it("the envelope is normalized: timeout_seconds defaults to 300", async () => {
    const result = await validateIn([
      "validate",
      "--json",
      "examples/envelopes/assess.json",
      "examples/envelopes/bare-envelope.json",
      "examples/envelopes/plan.json",
    ]);
    assert.equal(result.code, 0, result.stdout);
    const [assess, bare, plan] = verdicts(result.stdout);
    assert.deepEqual(assess?.envelope, {
      adapter: "sandbox-agent-runner",
      mode: "assess",
      command: ["node", RUNNER, "--request", ".aiwg/ops/runs/assess-001.json"],
      timeout_seconds: 300,
    });
    assert.equal(bare?.envelope?.timeout_seconds, 300);
    assert.equal(plan?.envelope?.timeout_seconds, 60);
    assert.equal(plan?.envelope?.working_dir, "/workspace");
  });

  it("an envelope at the send params' top-level metadata is found too", async () => {
    const file = tempFile({
      message: { role: "user", parts: [{ kind: "text", text: "x" }] },
      metadata: { [URI]: envelope(".aiwg/ops/runs/a.json", { mode: "assess", timeout_seconds: 5 }) },
    });
    const result = await validateIn(["validate", "--json", file]);
    assert.equal(result.code, 0, result.stdout);
    const [verdict] = verdicts(result.stdout);
    assert.equal(verdict?.dispatch, "adapter-command");
    assert.equal(verdict?.envelope?.mode, "assess");
  });

  it("errors carry path, code and message", async () => {
    const result = await validateIn(["validate", "--json", "examples/envelopes/invalid/bad-timeout.json"]);
    assert.equal(result.code, 1);
    const [verdict] = verdicts(result.stdout);
    assert.deepEqual(
      verdict?.errors.map((e) => [e.path, e.code]),
      [
        [`/message/metadata/${ESCAPED_URI}/mode`, "invalid_value"],
        [`/message/metadata/${ESCAPED_URI}/timeout_seconds`, "wrong_type"],
      ],
    );
    for (const error of verdict?.errors ?? []) assert.match(error.message, /expected/);
  });

  it("several faults in one file are all reported", async () => {
    const file = tempFile(
      sendParams(envelope("/etc/passwd", { mode: "Plan", timeout_seconds: 1.5, input_mode: "pty", extra: 1 })),
    );
    const result = await validateIn(["validate", "--json", file]);
    assert.equal(result.code, 1);
    const [verdict] = verdicts(result.stdout);
    const paths = new Set(verdict?.errors.map((e) => e.path));
    for (const field of ["mode", "timeout_seconds", "input_mode", "extra", "command/3"])
      assert.ok(paths.has(`/message/metadata/${ESCAPED_URI}/${field}`), `${field} in ${[...paths].join(", ")}`);
  });

  // CONTRACT section 2 now reads a directory as its *.json files: an empty one is what cannot be checked.
  it("a nonexistent path and a directory without JSON files: invalid, exit 1", async () => {
    const missing = join(temp, "nope.json");
    const empty = mkdtempSync(join(temp, "empty-"));
    const result = await validateIn(["validate", "--json", missing, empty, VALID[0] ?? ""]);
    assert.equal(result.code, 1);
    const out = verdicts(result.stdout);
    assert.deepEqual(
      out.map((v) => [v.file, v.valid]),
      [
        [missing, false],
        [empty, false],
        [VALID[0], true],
      ],
    );
    assert.deepEqual(
      out.slice(0, 2).map((verdict) => codes(verdict.errors)),
      [["file_unreadable"], ["no_json_files"]],
    );
    for (const verdict of out.slice(0, 2)) {
      assert.match(verdict.errors[0]?.message ?? "", /expected/);
      for (const key of ["file", "valid", "errors", "warnings"]) assert.ok(key in verdict, key);
      for (const key of Object.keys(verdict))
        assert.ok(["file", "valid", "dispatch", "errors", "warnings"].includes(key), key);
    }
  });

  it("invalid JSON: line and column", async () => {
    const result = await validateIn(["validate", "--json", "examples/envelopes/invalid/syntax-error.json"]);
    assert.equal(result.code, 1);
    const [verdict] = verdicts(result.stdout);
    assert.equal(verdict?.valid, false);
    assert.deepEqual(codes(verdict?.errors ?? []), ["json_syntax"]);
    assert.equal(verdict?.errors[0]?.line, 4);
    assert.equal(verdict?.errors[0]?.column, 3);
  });

  it("a file that is not an object is invalid", async () => {
    const file = tempFile([1, 2, 3]);
    const result = await validateIn(["validate", "--json", file]);
    assert.equal(result.code, 1);
    const [verdict] = verdicts(result.stdout);
    assert.deepEqual(
      verdict?.errors.map((e) => [e.path, e.code]),
      [["", "wrong_type"]],
    );
  });
});

describe("validate --workspace", { concurrency: AT_ONCE }, () => {
  it("without --workspace the current directory plays it: what is missing there is warned of, as run says", async () => {
    const file = tempFile(sendParams(envelope(".aiwg/ops/runs/does-not-exist.json")));
    const empty = mkdtempSync(join(temp, "cwd-"));
    const result = await runCli(["validate", "--json", file], { cwd: empty });
    assert.equal(result.code, 0, result.stdout);
    const [verdict] = verdicts(result.stdout);
    assert.equal(verdict?.valid, true);
    assert.deepEqual(codes(verdict?.warnings ?? []).sort(), ["request_missing", "runner_missing"]);
    const runner = verdict?.warnings.find((w) => w.code === "runner_missing")?.message ?? "";
    // run from the same directory fails for the same reason, in the same words and with the same hint.
    const ran = await runCli(["run", "--no-tui", file], { cwd: empty });
    assert.equal(ran.code, 4, ran.stderr);
    const [missing, hint] = runner.split("; ");
    assert.ok(ran.stderr.includes(`failed: ${missing}`), `${ran.stderr}\nvs\n${runner}`);
    assert.ok(ran.stderr.includes(hint as string), `${ran.stderr}\nvs\n${runner}`);
    assert.match(ran.stderr, /warning: no request file at .*does-not-exist\.json \[request_missing\]/);
    // And in a directory that holds them, neither warns.
    const plan = join(EXAMPLES, "envelopes/plan.json");
    const here = await runCli(["validate", "--json", plan], { cwd: join(EXAMPLES, "workspace") });
    assert.deepEqual(verdicts(here.stdout)[0]?.warnings, []);
  });

  it("a missing request is a warning, not an error", async () => {
    const file = tempFile(sendParams(envelope(".aiwg/ops/runs/does-not-exist.json")));
    const result = await validateIn(["validate", "--json", "--workspace", "examples/workspace", file]);
    assert.equal(result.code, 0, result.stdout);
    const [verdict] = verdicts(result.stdout);
    assert.equal(verdict?.valid, true);
    assert.deepEqual(verdict?.errors, []);
    assert.deepEqual(
      verdict?.warnings.map((w) => [w.path, w.code]),
      [[`/message/metadata/${ESCAPED_URI}/command/3`, "request_missing"]],
    );
  });

  it("a missing working directory, runner and request are warnings, not errors", async () => {
    const file = tempFile(
      sendParams(envelope(".aiwg/ops/runs/assess-001.json", { working_dir: "/workspace/not-there" })),
    );
    const result = await validateIn(["validate", "--json", "--workspace", "examples/workspace", file]);
    assert.equal(result.code, 0, result.stdout);
    const [verdict] = verdicts(result.stdout);
    assert.equal(verdict?.valid, true);
    assert.deepEqual(verdict?.errors, []);
    assert.deepEqual(codes(verdict?.warnings ?? []).sort(), [
      "request_missing",
      "runner_missing",
      "working_dir_missing",
    ]);
  });

  it("the valid examples stay valid, without warnings, against examples/workspace", async () => {
    const result = await validateIn(["validate", "--json", "--workspace", "examples/workspace", ...VALID]);
    assert.equal(result.code, 0, result.stdout);
    for (const verdict of verdicts(result.stdout)) {
      assert.equal(verdict.valid, true, JSON.stringify(verdict));
      assert.deepEqual(verdict.warnings, [], JSON.stringify(verdict));
    }
  });

  it("a request that escapes through a symlink is an error", async () => {
    const file = tempFile(sendParams(envelope(".aiwg/ops/runs/link.json", { working_dir: "escape" })));
    const result = await validateIn(["validate", "--json", "--workspace", "test/fixtures/workspace", file]);
    assert.equal(result.code, 1, result.stdout);
    const [verdict] = verdicts(result.stdout);
    assert.equal(verdict?.valid, false);
    assert.deepEqual(
      verdict?.errors.map((e) => [e.path, e.code]),
      [[`/message/metadata/${ESCAPED_URI}/command/3`, "request_escape"]],
    );
  });

  it("a working_dir outside the workspace is an error", async () => {
    const file = tempFile(sendParams(envelope(".aiwg/ops/runs/a.json", { working_dir: "../.." })));
    const result = await validateIn(["validate", "--json", "--workspace", "examples/workspace", file]);
    assert.equal(result.code, 1, result.stdout);
    const [verdict] = verdicts(result.stdout);
    assert.deepEqual(codes(verdict?.errors ?? []), ["working_dir_outside"]);
  });
});

describe("validate: hostile files and places", { concurrency: AT_ONCE }, () => {
  const rawFile = (name: string, bytes: string | Buffer): string => {
    const path = join(temp, name);
    writeFileSync(path, bytes);
    return path;
  };

  it("a document nested 5000 levels deep is refused with too_deep, not a crash", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`;
    const inner = JSON.stringify(envelope(".aiwg/ops/runs/a.json")).slice(0, -1);
    const text = `{"message":{"role":"user","parts":[],"metadata":{"${URI}":${inner},"x":${deep}}}},"metadata":{"${URI}":${inner},"x":${deep}}}}`;
    const result = await runCli(["validate", "--json", rawFile("deep.json", text)]);
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(codes(verdicts(result.stdout)[0]?.errors ?? []), ["too_deep"]);
    assert.equal(result.stderr, "");
  });

  // CONTRACT section 2 now: only regular files are read, so /dev/zero is not_a_file; the size limit is shown
  // with a regular file over it.
  it("an endless file (/dev/zero) is not_a_file; a regular file over 4 MiB is file_too_large", async () => {
    const result = await validateIn(["validate", "--json", "/dev/zero"]);
    assert.equal(result.code, 1, result.stderr);
    const [verdict] = verdicts(result.stdout);
    assert.deepEqual(codes(verdict?.errors ?? []), ["not_a_file"]);
    const big = rawFile("big.json", Buffer.alloc(4 * 1024 * 1024 + 1, 0x20));
    const [tooLarge] = verdicts((await validateIn(["validate", "--json", big])).stdout);
    assert.deepEqual(codes(tooLarge?.errors ?? []), ["file_too_large"]);
    assert.match(tooLarge?.errors[0]?.message ?? "", /expected at most 4194304 bytes, found more/);
  });

  it("bytes that are not UTF-8: not_utf8, with the line they are on", async () => {
    const file = rawFile(
      "latin1.json",
      Buffer.concat([Buffer.from('{\n"a":\n"'), Buffer.from([0xe9]), Buffer.from('"}')]),
    );
    const result = await validateIn(["validate", "--json", file]);
    assert.equal(result.code, 1);
    const [problem] = verdicts(result.stdout)[0]?.errors ?? [];
    assert.equal(problem?.code, "not_utf8");
    assert.match(problem?.message ?? "", /on line 3$/);
  });

  it("a NUL in working_dir and a timeout of 1e400 say what was found", async () => {
    const text = JSON.stringify(envelope(".aiwg/ops/runs/a.json", { working_dir: "a\u0000b" })).replace(
      /}$/,
      ',"timeout_seconds":1e400}',
    );
    const result = await validateIn(["validate", "--json", rawFile("found.json", text)]);
    const messages = (verdicts(result.stdout)[0]?.errors ?? []).map((e) => `${e.code}: ${e.message}`);
    assert.ok(
      messages.includes('working_dir_nul: expected a path without NUL characters, found "a\\u0000b"'),
      messages.join("\n"),
    );
    assert.ok(
      messages.some((m) => /^out_of_range: .*found number Infinity$/.test(m)),
      messages.join("\n"),
    );
  });

  it("envelope fields beside message or parts are an error, never an echo", async () => {
    const files = [
      tempFile({ ...envelope("/etc/passwd"), message: { role: "user", parts: [{ kind: "text", text: "hi" }] } }),
      tempFile({ ...envelope(".aiwg/ops/runs/a.json"), role: "user", parts: [{ kind: "text", text: "hi" }] }),
    ];
    const result = await validateIn(["validate", "--json", ...files]);
    assert.equal(result.code, 1);
    for (const verdict of verdicts(result.stdout)) {
      assert.equal(verdict.valid, false);
      assert.equal(verdict.dispatch, "adapter-command");
      assert.deepEqual(
        verdict.errors.filter((e) => e.code === "envelope_misplaced").map((e) => e.path),
        ["/adapter", "/mode", "/command"],
      );
    }
  });

  it("without --workspace, a working_dir that leaves any workspace is still an error", async () => {
    const files = ["/workspace/../etc", "../x", "a/../../b"].map((wd) =>
      tempFile(envelope(".aiwg/ops/runs/a.json", { working_dir: wd })),
    );
    const inside = tempFile(envelope(".aiwg/ops/runs/a.json", { working_dir: "/workspace/a/../b" }));
    const result = await validateIn(["validate", "--json", ...files, inside]);
    assert.equal(result.code, 1);
    assert.deepEqual(
      verdicts(result.stdout).map((v) => codes(v.errors)),
      [["working_dir_outside"], ["working_dir_outside"], ["working_dir_outside"], []],
    );
  });

  it("--workspace that is not a directory is a usage error (exit 2)", async () => {
    for (const dir of [join(temp, "nowhere"), VALID[0] ?? "", "/etc/passwd/x"]) {
      const result = await runCli(["validate", "--workspace", dir, VALID[0] ?? ""]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /--workspace .*expected a directory, found (nothing|a file|ENOTDIR)/);
    }
  });

  it("a reader that goes away (| head -c 10) ends validate quietly", async () => {
    const files = Array.from({ length: 400 }, (_, i) => tempFile({ bad: i }));
    const child = startCli(["validate", ...files]);
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdin.end();
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((resolve) => child.on("close", resolve));
    assert.equal(stderr, "");
    assert.ok(code === 1 || code === 0, `exit ${code}`);
  });
});

describe("schema", { concurrency: AT_ONCE }, () => {
  it("prints a JSON Schema that accepts the valid example envelopes and rejects bad ones", async () => {
    const result = await runCli(["schema"]);
    assert.equal(result.code, 0, result.stderr);
    const schema = JSON.parse(result.stdout) as Json;
    assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
    const validate = new Ajv2020({ allErrors: true }).compile(schema);
    let checked = 0;
    for (const file of VALID) {
      const value = envelopeOfFile(JSON.parse(readFileSync(join(ROOT, file), "utf8")));
      if (value === undefined) continue;
      checked++;
      assert.equal(validate(value), true, `${file}: ${JSON.stringify(validate.errors)}`);
    }
    assert.ok(checked >= 3);
    assert.equal(validate(envelope(".aiwg/ops/runs/a.json", { shell: true })), false);
    assert.equal(validate(envelope(".aiwg/ops/runs/a.json", { mode: "Plan" })), false);
    assert.equal(validate(envelope(".aiwg/ops/runsX/a.json")), false);
  });
});

describe("validate: near misses, start limits and repeated keys (CONTRACT section 2)", { concurrency: AT_ONCE }, () => {
  const NEAR_MISSES = [
    URI.replace("https:", "http:"),
    URI.toUpperCase(),
    `${URI}/`,
    URI.replace(/v1$/, "v2"),
    "urn:example:adapter-command/v1",
    "https://example.com/extensions/adapter-command",
  ];

  it("an envelope under a key that is almost the extension URI is invalid, never an echo", async () => {
    const files = NEAR_MISSES.map((key) =>
      tempFile({
        message: { role: "user", parts: [{ kind: "text", text: "hi" }], metadata: { [key]: envelope("a") } },
      }),
    );
    const result = await validateIn(["validate", "--json", ...files]);
    assert.equal(result.code, 1, result.stdout);
    const out = verdicts(result.stdout);
    NEAR_MISSES.forEach((key, i) => {
      const verdict = out[i];
      assert.equal(verdict?.valid, false, key);
      assert.equal(verdict?.dispatch, "adapter-command", key);
      assert.deepEqual(codes(verdict?.errors ?? []), ["envelope_key_mismatch"], key);
      assert.ok(verdict?.errors[0]?.message.includes(`"${URI}"`), "names the key expected");
    });
  });

  it("a text part with a NUL, a joined text over 64 KiB and 1001 parts are invalid", async () => {
    const withParts = (parts: unknown[]) => ({
      message: { role: "user", parts, metadata: { [URI]: envelope(".aiwg/ops/runs/a.json") } },
    });
    const text = (t: string) => ({ kind: "text", text: t });
    const files = [
      tempFile(withParts([text("a\u0000b")])),
      tempFile(withParts([text("x".repeat(65536)), text("")])),
      tempFile(withParts([text("x"), ...Array(1000).fill({ kind: "data", data: {} })])),
      tempFile(withParts([text("x".repeat(65536))])),
    ];
    const result = await validateIn(["validate", "--json", ...files]);
    assert.deepEqual(
      verdicts(result.stdout).map((v) => codes(v.errors)),
      [["message_nul"], ["message_too_large"], ["too_many_parts"], []],
    );
  });

  it("a key repeated on any object is duplicate_key, with line:column for a person and in --json", async () => {
    const file = join(temp, "repeated.json");
    writeFileSync(
      file,
      `{\n  "adapter": "sandbox-agent-runner",\n  "mode": "plan",\n  "mode": "assess",\n  "command": ["node", "${RUNNER}", "--request", ".aiwg/ops/runs/a.json"]\n}\n`,
    );
    const human = await validateIn(["validate", file]);
    assert.equal(human.code, 1);
    assert.match(
      human.stdout,
      /^ {2}error {3}4:3 mode: expected each key once in an object, found "mode" again \(first at line 3, column 3\).*\[duplicate_key\]$/m,
    );
    const [verdict] = verdicts((await validateIn(["validate", "--json", file])).stdout);
    assert.deepEqual(
      verdict?.errors.map((e) => [e.path, e.code, e.line, e.column]),
      [["/mode", "duplicate_key", 4, 3]],
    );
  });

  it("did you mean: a misspelt key or value names the one meant", async () => {
    const result = await validateIn([
      "validate",
      tempFile(sendParams(envelope(".aiwg/ops/runs/a.json", { mode: "plna", timout_seconds: 5 }))),
    ]);
    assert.equal(result.code, 1);
    assert.match(result.stdout, /envelope\.mode: expected "plan" or "assess", found "plna"; did you mean "plan"\?/);
    assert.match(result.stdout, /envelope\.timout_seconds: .*; did you mean "timeout_seconds"\?/);
  });

  it('a bare envelope with a "$schema" is valid', async () => {
    const file = tempFile({ $schema: "../schema/adapter-command.schema.json", ...envelope(".aiwg/ops/runs/a.json") });
    const result = await validateIn(["validate", "--json", file]);
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(verdicts(result.stdout)[0]?.envelope, {
      ...envelope(".aiwg/ops/runs/a.json"),
      timeout_seconds: 300,
    });
  });
});

describe("validate: what a person sees", { concurrency: AT_ONCE }, () => {
  it("control characters from the file never reach the terminal: a working_dir cannot retitle it or fake a line", async () => {
    const hostile = "/etc\u001b]0;pwned\u0007\u001b[2J\r\nvalid    fake.json\u009b31m";
    const files = [
      tempFile(sendParams(envelope(".aiwg/ops/runs/a.json", { working_dir: hostile }))),
      tempFile(sendParams(envelope(".aiwg/ops/runs/a.json", { [`k${hostile}`]: 1 }))),
    ];
    const result = await validateIn(["validate", ...files]);
    assert.equal(result.code, 1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
    assert.doesNotMatch(result.stdout.replaceAll("\n", ""), /[\u0000-\u001f\u007f-\u009f]/);
    assert.ok(result.stdout.includes("\\u001b]0;pwned\\u0007"), result.stdout);
    assert.equal(result.stdout.split("\n").filter((line) => /^valid\s/.test(line)).length, 0, "no fake verdict");
  });

  it("an errno code is said in words", async () => {
    const result = await validateIn(["validate", join(temp, "does-not-exist.json")]);
    assert.match(result.stdout, /expected a readable file, found nothing at that path \[file_unreadable\]/);
    assert.doesNotMatch(result.stdout, /ENOENT/);
  });
});

describe("validate: directories, stdin and special files", { concurrency: AT_ONCE }, () => {
  it("a directory is its *.json files, recursively and sorted", async () => {
    const result = await validateIn(["validate", "--json", "examples/envelopes"]);
    assert.equal(result.code, 1);
    assert.deepEqual(
      verdicts(result.stdout).map((v) => v.file),
      [...VALID, ...INVALID].sort(),
    );
  });

  it("a directory run ends with a summary line; --json and a list of files have none", async () => {
    const result = await validateIn(["validate", "--workspace", "examples/workspace", "examples/envelopes"]);
    assert.equal(result.code, 1);
    const total = VALID.length + INVALID.length;
    assert.equal(
      result.stdout.trimEnd().split("\n").at(-1),
      `${total} files: ${VALID.length} valid, ${INVALID.length} invalid`,
    );
    const listed = await validateIn(["validate", "--workspace", "examples/workspace", ...VALID]);
    assert.doesNotMatch(listed.stdout, /files:/);
    const json = await validateIn(["validate", "--json", "examples/envelopes"]);
    assert.equal(verdicts(json.stdout).length, total);
  });

  it("a trailing comma is reported at the comma, in words", async () => {
    const file = join(temp, "trailing-comma.json");
    writeFileSync(file, '{\n  "adapter": "sandbox-agent-runner",\n  "mode": "plan",\n}\n');
    const result = await validateIn(["validate", file]);
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /error {3}3:17: expected another member after this comma, found "}": JSON allows no comma after the last one \[json_syntax\]/,
    );
  });

  it("- reads stdin", async () => {
    const input = readFileSync(join(ROOT, "examples/envelopes/plan.json"), "utf8");
    const result = await runCli(["validate", "--json", "-"], { input });
    assert.equal(result.code, 0, result.stdout);
    assert.deepEqual(
      verdicts(result.stdout).map((v) => [v.file, v.valid, v.dispatch]),
      [["-", true, "adapter-command"]],
    );
  });

  it("a FIFO with no writer is not_a_file, at once: validate does not wait for a writer", async (t) => {
    const fifo = join(temp, "fifo.json");
    if (spawnSync("mkfifo", [fifo]).status !== 0) return t.skip("mkfifo is not available");
    const result = await runCli(["validate", "--json", fifo, VALID[0] ?? ""], { timeoutMs: 15_000 });
    assert.equal(result.signal, null, "validate blocked on the FIFO and was killed");
    assert.equal(result.code, 1);
    assert.deepEqual(
      verdicts(result.stdout).map((v) => codes(v.errors)),
      [["not_a_file"], []],
    );
  });
});

describe("validate and run agree", { concurrency: AT_ONCE }, () => {
  it('without --workspace, "working_dir": "/etc" is refused by both (the current directory plays the workspace)', async () => {
    const file = tempFile(sendParams(envelope(".aiwg/ops/runs/a.json", { working_dir: "/etc" })));
    const validated = await runCli(["validate", "--json", file]);
    assert.equal(validated.code, 1, validated.stdout);
    assert.deepEqual(codes(verdicts(validated.stdout)[0]?.errors ?? []), ["working_dir_outside"]);
    const ran = await runCli(["run", "--no-tui", file]);
    assert.equal(ran.code, 3, ran.stderr);
    assert.match(ran.stderr, /working_dir_outside/);
  });
});

describe("schema: the shipped files", { concurrency: AT_ONCE }, () => {
  it("schema prints the input files' schema, equal to schema/adapter-command.schema.json", async () => {
    const result = await runCli(["schema"]);
    assert.equal(result.code, 0, result.stderr);
    const printed = JSON.parse(result.stdout) as Json;
    assert.deepEqual(printed, JSON.parse(readFileSync(join(ROOT, "schema/adapter-command.schema.json"), "utf8")));
    assert.deepEqual(Object.keys(printed.$defs as Json).sort(), ["BareEnvelope", "Envelope", "Message", "SendParams"]);
  });

  it("schema --envelope prints the bare envelope's, equal to schema/adapter-command-envelope.schema.json", async () => {
    const result = await runCli(["schema", "--envelope"]);
    assert.equal(result.code, 0, result.stderr);
    const printed = JSON.parse(result.stdout) as Json;
    const shipped = JSON.parse(readFileSync(join(ROOT, "schema/adapter-command-envelope.schema.json"), "utf8"));
    assert.deepEqual(printed, shipped);
    assert.equal(printed.$id, `${URI}/envelope.schema.json`);
  });

  it("the package ships the schema folder", () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { files: string[] };
    assert.ok(pkg.files.includes("schema"), JSON.stringify(pkg.files));
  });
});

describe("validate: every problem, in the file's order (issue 49)", () => {
  /** A file written as it is, so the lines of its fields are known. */
  const textFile = (text: string) => {
    const path = join(temp, `file-${++counter}.json`);
    writeFileSync(path, text);
    return path;
  };
  const lines = (...fields: string[]) => `{\n${fields.map((field) => `  ${field}`).join(",\n")}\n}\n`;
  const ADAPTER = '"adapter": "sandbox-agent-runner"';
  const MODE = '"mode": "plan"';
  const command = (request: string) => `"command": ["node", "${RUNNER}", "--request", "${request}"]`;
  const problemLines = (stdout: string) =>
    stdout
      .split("\n")
      .filter((line) => line.startsWith("  error"))
      .map((line) => /error\s+(\d+:\d+ \S+)/.exec(line)?.[1]);

  it("a bad request path and a bad working_dir: both reported", async () => {
    const file = textFile(lines(ADAPTER, MODE, command("/etc/passwd"), '"working_dir": "/etc"'));
    const result = await runCli(["validate", "--workspace", "examples/workspace", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /4:\d+ command\[3\]: .*\[request_absolute\]/);
    assert.match(result.stdout, /5:3 working_dir: .*found "\/etc" \[working_dir_outside\]/);
  });

  it("problems print in line order: an unknown field before a bad value below it", async () => {
    const file = textFile(
      lines(ADAPTER, MODE, command(".aiwg/ops/runs/req.json"), '"extra": 1', '"timeout_seconds": -5'),
    );
    const result = await runCli(["validate", "--workspace", "examples/workspace", file]);
    assert.equal(result.code, 1, result.stdout);
    assert.deepEqual(problemLines(result.stdout), ["5:3 extra:", "6:3 timeout_seconds:"], result.stdout);
  });
});
