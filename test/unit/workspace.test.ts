// CONTRACT 3.1: working_dir onto the local workspace, and no escape after symlinks (also what validate --workspace checks).
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, describe, it } from "node:test";
import { analyzeInput } from "../../src/a2a/input-file.js";
import type { Envelope } from "../../src/core/envelope/envelope.js";
import type { Problem } from "../../src/core/envelope/problems.js";
import { mapWorkingDir, type PlacementResult, place } from "../../src/core/envelope/workspace.js";

const RUNNER = ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs";
const RUNS = ".aiwg/ops/runs";
const ADAPTERS = ".aiwg/ops/adapters/sandbox-agent-runner";
const A_BASE = "/message/metadata/https:~1~1agentic-sandbox.aiwg.io~1extensions~1adapter-command~1v1";

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the system temp folder, symlinks resolved. */
function tempDir(prefix: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `adapter-command-${prefix}-`)));
  temps.push(dir);
  return dir;
}

function write(path: string, text = "{}\n"): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** A working directory with a runner and `.aiwg/ops/runs/req.json`. */
function populate(dir: string): string {
  write(join(dir, RUNNER), "process.exit(0);\n");
  write(join(dir, RUNS, "req.json"));
  return dir;
}

/** A valid envelope, as the validator produces it. */
function envelope(request = `${RUNS}/req.json`, workingDir?: string): Envelope {
  const analysis = analyzeInput({
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", RUNNER, "--request", request],
    ...(workingDir !== undefined ? { working_dir: workingDir } : {}),
  });
  assert.ok(analysis.valid && analysis.dispatch === "adapter-command", JSON.stringify(analysis));
  return analysis.envelope;
}

const pairs = (problems: Problem[]) => problems.map((p) => [p.path, p.code]);

function errorsOf(result: PlacementResult): Problem[] {
  assert.equal(result.ok, false, `expected a rejection, got ${JSON.stringify(result)}`);
  return result.ok ? [] : result.errors;
}

describe("mapWorkingDir", () => {
  const ws = resolve("/srv/ws-root");
  const cases: Array<[string, string | undefined, string | undefined]> = [
    ["absent", undefined, ws],
    ["empty", "", ws],
    ["/workspace", "/workspace", ws],
    ["/workspace/", "/workspace/", ws],
    ["/workspace/sub", "/workspace/sub", join(ws, "sub")],
    ["/workspace/a/b", "/workspace/a/b", join(ws, "a/b")],
    ["relative", "sub", join(ws, "sub")],
    ["relative with a dot", "./sub", join(ws, "sub")],
    ["relative with .. that stays inside", "a/../b", join(ws, "b")],
    [".", ".", ws],
    ["absolute inside", join(ws, "sub"), join(ws, "sub")],
    ["absolute: the workspace itself", ws, ws],
    ["../x", "../x", undefined],
    ["..", "..", undefined],
    ["relative that climbs out", "sub/../../x", undefined],
    ["/workspace/.. climbing out", "/workspace/../x", undefined],
    ["/workspacefoo (no segment boundary)", "/workspacefoo", undefined],
    ["absolute outside", "/etc", undefined],
    ["absolute sibling sharing the prefix", `${ws}-other`, undefined],
    ["absolute root", "/", undefined],
  ];
  for (const [name, input, expected] of cases) {
    it(`${name}: ${JSON.stringify(input)} → ${expected ?? "rejected"}`, () => {
      assert.equal(mapWorkingDir(ws, input), expected);
    });
  }
  it("a relative workspace is resolved against the current directory", () => {
    assert.equal(mapWorkingDir("some/ws", "/workspace/x"), resolve("some/ws", "x"));
  });
});

describe("place", () => {
  it("everything present: ok, no warnings, resolved paths", () => {
    const ws = populate(tempDir("ws"));
    const result = place(ws, envelope(), "");
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(result.placement, {
      workspace: ws,
      workingDir: ws,
      runnerPath: join(ws, RUNNER),
      requestPath: join(ws, RUNS, "req.json"),
    });
  });

  it("a request under the adapter folder is ok", () => {
    const ws = populate(tempDir("ws"));
    write(join(ws, ADAPTERS, "examples/x.json"));
    const result = place(ws, envelope(`${ADAPTERS}/examples/x.json`), "");
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.warnings, []);
  });

  it("working_dir /workspace/sub and sub both run in DIR/sub", () => {
    const ws = tempDir("ws");
    populate(join(ws, "sub"));
    for (const wd of ["/workspace/sub", "sub", join(ws, "sub")]) {
      const result = place(ws, envelope(undefined, wd), "");
      assert.ok(result.ok, `${wd}: ${JSON.stringify(result)}`);
      assert.equal(result.placement.workingDir, join(ws, "sub"));
      assert.equal(result.placement.requestPath, join(ws, "sub", RUNS, "req.json"));
      assert.deepEqual(result.warnings, []);
    }
  });

  it("the workspace given through a symlink is resolved", () => {
    const ws = populate(tempDir("ws"));
    const links = tempDir("links");
    symlinkSync(ws, join(links, "ws"));
    const result = place(join(links, "ws"), envelope(), "");
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.placement.workspace, ws);
  });

  it("an absolute working_dir inside the workspace as given, through its symlink: itself", () => {
    const ws = tempDir("ws");
    populate(join(ws, "sub"));
    const links = tempDir("links");
    symlinkSync(ws, join(links, "ws"));
    for (const wd of [join(links, "ws", "sub"), join(ws, "sub")]) {
      const result = place(join(links, "ws"), envelope(undefined, wd), "");
      assert.ok(result.ok, `${wd}: ${JSON.stringify(result)}`);
      assert.equal(result.placement.workingDir, join(ws, "sub"));
    }
    const outside = errorsOf(place(join(links, "ws"), envelope(undefined, join(links, "other")), ""));
    assert.deepEqual(
      outside.map((e) => e.code),
      ["working_dir_outside"],
    );
  });

  it("a missing workspace: workspace_missing", () => {
    const ws = tempDir("ws");
    const errors = errorsOf(place(join(ws, "nope"), envelope(), ""));
    assert.deepEqual(
      errors.map((e) => e.code),
      ["workspace_missing"],
    );
  });

  it("working_dir outside the workspace: working_dir_outside at /working_dir", () => {
    const ws = populate(tempDir("ws"));
    for (const wd of ["../x", "/etc", "/workspace/../.."]) {
      const errors = errorsOf(place(ws, envelope(undefined, wd), A_BASE));
      assert.deepEqual(pairs(errors), [[`${A_BASE}/working_dir`, "working_dir_outside"]], wd);
      assert.match(errors[0]?.message ?? "", /expected/);
      assert.ok(errors[0]?.message.includes(wd), errors[0]?.message);
    }
  });

  it("a symlinked working dir that points outside: working_dir_escape", () => {
    const ws = tempDir("ws");
    const outside = populate(tempDir("outside"));
    symlinkSync(outside, join(ws, "link"));
    for (const wd of ["link", "/workspace/link", join(ws, "link")]) {
      const errors = errorsOf(place(ws, envelope(undefined, wd), A_BASE));
      assert.deepEqual(pairs(errors), [[`${A_BASE}/working_dir`, "working_dir_escape"]], wd);
    }
  });

  it("a working dir below a symlinked folder that points outside: working_dir_escape", () => {
    const ws = tempDir("ws");
    const outside = tempDir("outside");
    populate(join(outside, "deep"));
    symlinkSync(outside, join(ws, "link"));
    const errors = errorsOf(place(ws, envelope(undefined, "link/deep"), ""));
    assert.deepEqual(pairs(errors), [["/working_dir", "working_dir_escape"]]);
  });

  it("a symlinked working dir that stays inside: ok, at its real path", () => {
    const ws = tempDir("ws");
    populate(join(ws, "real"));
    symlinkSync(join(ws, "real"), join(ws, "link"));
    const result = place(ws, envelope(undefined, "link"), "");
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.placement.workingDir, join(ws, "real"));
  });

  it("a request that is a symlink to a file outside: request_escape at /command/3", () => {
    const ws = populate(tempDir("ws"));
    const outside = tempDir("outside");
    write(join(outside, "secret.json"));
    symlinkSync(join(outside, "secret.json"), join(ws, RUNS, "link.json"));
    const errors = errorsOf(place(ws, envelope(`${RUNS}/link.json`), A_BASE));
    assert.deepEqual(pairs(errors), [[`${A_BASE}/command/3`, "request_escape"]]);
    assert.match(errors[0]?.message ?? "", /expected/);
  });

  it("a request symlinked to a file of the working dir outside the allowed folders: request_escape", () => {
    const ws = populate(tempDir("ws"));
    write(join(ws, "private.json"));
    symlinkSync(join(ws, "private.json"), join(ws, RUNS, "link.json"));
    const errors = errorsOf(place(ws, envelope(`${RUNS}/link.json`), ""));
    assert.deepEqual(pairs(errors), [["/command/3", "request_escape"]]);
  });

  it("a request below a symlinked folder that points outside: request_escape", () => {
    const ws = tempDir("ws");
    write(join(ws, RUNNER));
    const outside = tempDir("outside");
    write(join(outside, "req.json"));
    symlinkSync(outside, join(ws, RUNS));
    const errors = errorsOf(place(ws, envelope(`${RUNS}/req.json`), ""));
    assert.deepEqual(pairs(errors), [["/command/3", "request_escape"]]);
  });

  it("a request that resolves to the allowed folder itself: request_escape", () => {
    const ws = populate(tempDir("ws"));
    symlinkSync(".", join(ws, RUNS, "self"));
    const errors = errorsOf(place(ws, envelope(`${RUNS}/self`), ""));
    assert.deepEqual(pairs(errors), [["/command/3", "request_escape"]]);
  });

  it("a request symlinked to another file under the same allowed folder: ok", () => {
    const ws = populate(tempDir("ws"));
    symlinkSync("req.json", join(ws, RUNS, "alias.json"));
    const result = place(ws, envelope(`${RUNS}/alias.json`), "");
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.warnings, []);
  });

  it("a request symlinked into the other allowed folder: ok", () => {
    const ws = populate(tempDir("ws"));
    write(join(ws, ADAPTERS, "examples/x.json"));
    symlinkSync(join(ws, ADAPTERS, "examples/x.json"), join(ws, RUNS, "alias.json"));
    const result = place(ws, envelope(`${RUNS}/alias.json`), "");
    assert.ok(result.ok, JSON.stringify(result));
  });

  it("a runner that is a symlink outside the working dir: runner_escape at /command/1", () => {
    const ws = tempDir("ws");
    write(join(ws, RUNS, "req.json"));
    const outside = tempDir("outside");
    write(join(outside, "runner.mjs"));
    mkdirSync(join(ws, ADAPTERS), { recursive: true });
    symlinkSync(join(outside, "runner.mjs"), join(ws, RUNNER));
    const errors = errorsOf(place(ws, envelope(), ""));
    assert.deepEqual(pairs(errors), [["/command/1", "runner_escape"]]);
  });

  it("a missing request: ok with the warning request_missing", () => {
    const ws = populate(tempDir("ws"));
    const result = place(ws, envelope(`${RUNS}/nope.json`), A_BASE);
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(pairs(result.warnings), [[`${A_BASE}/command/3`, "request_missing"]]);
  });

  it("a missing runner: ok with the warning runner_missing", () => {
    const ws = tempDir("ws");
    write(join(ws, RUNS, "req.json"));
    const result = place(ws, envelope(), A_BASE);
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(pairs(result.warnings), [[`${A_BASE}/command/1`, "runner_missing"]]);
  });

  it("a missing working dir: ok with the warning working_dir_missing (and the files in it missing)", () => {
    const ws = populate(tempDir("ws"));
    const result = place(ws, envelope(undefined, "not-there"), A_BASE);
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.placement.workingDir, join(ws, "not-there"));
    const codes = result.warnings.map((w) => w.code);
    assert.ok(codes.includes("working_dir_missing"), JSON.stringify(result.warnings));
    assert.deepEqual(result.warnings.find((w) => w.code === "working_dir_missing")?.path, `${A_BASE}/working_dir`);
  });

  it("a request and a runner that are both missing: two warnings, no error", () => {
    const ws = tempDir("ws");
    const result = place(ws, envelope(), "");
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(pairs(result.warnings).sort(), [
      ["/command/1", "runner_missing"],
      ["/command/3", "request_missing"],
    ]);
  });
});
