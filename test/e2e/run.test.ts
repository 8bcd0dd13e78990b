// `run --no-tui` end to end through the built binary over real pipes (CONTRACT sections 1, 3 and 6).
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, it } from "node:test";
import { AT_ONCE, FIXTURES, jsonRun, runCli, started } from "../helpers/cli.js";
import { envelopeParams, writeEnvelope, writeJson, writeMessage } from "../helpers/envelopes.js";
import { goneWithin, groupRunning, killGroup, pidRunning, procStat } from "../helpers/processes.js";

const run = (file: string, ...extra: string[]) => ["run", "--no-tui", "--workspace", FIXTURES, ...extra, file];

/** The same for one process that a failing test left behind, and its group. */
function cleanupPid(pid: number): void {
  const pgid = Number(procStat(pid)?.[2] ?? 0);
  if (pgid > 1 && pgid !== process.pid) killGroup(pgid);
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // already gone
  }
}

// Every test runs its own tool on its own files: the tests of a group run at once, as most of their time is waiting.
describe("run --no-tui: exit codes and states", { concurrency: AT_ONCE }, () => {
  it("exit 0 → completed, exit code 0, stdout passes through", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "ok", timeout_seconds: 30 })));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "ok\n");
  });

  it("exit3 → exit 1 (failed, application), the runner's stderr passes through", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "exit3", timeout_seconds: 30 })));
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, "");
    // The runner's own stderr first (the guard is named only with --verbose), then the closing line with the task id.
    assert.match(result.stderr, /^failing\n/);
    assert.match(result.stderr, /exited with code 3 · task [0-9a-f-]{36}\n/);
  });

  it("--verbose: the guard the tool uses comes first (CONTRACT 3.2)", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "exit3", timeout_seconds: 30 }), "--verbose"));
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stderr, /^adapter-command: containment: (cgroup|marker|group)\nfailing\n/);
  });

  // Timing from what the tool reports, so that a slow start on a loaded machine neither fails nor skips the test:
  // the deadline runs from the dispatch, which comes after the submitted status of `run --json` (jsonRun). Plain
  // `run` gets the same ending in its words, and its exit no earlier than the deadline after its own start.
  it("hang with timeout_seconds 1 → exit 124, 'timed out', ended within 2.5 s after the deadline", async () => {
    const file = writeEnvelope({ working_dir: "hang", timeout_seconds: 1 });
    const plain = started(run(file));
    const json = started(["run", "--json", "--workspace", FIXTURES, file]);
    try {
      assert.equal(await plain.closed, 124, plain.stderr());
      assert.match(plain.stderr(), /timed out after 1 s/);
      assert.ok(plain.total() >= 1, `ended ${plain.total().toFixed(2)} s after the start, before the deadline`);
      assert.equal(await json.closed, 124, json.stderr());
      const { final, submittedAt, endedAt } = jsonRun(json.stdout());
      assert.equal(final?.status.state, "failed");
      // 10 ms of slack: timestamps are whole milliseconds and a timer may fire a millisecond early.
      assert.ok(endedAt - submittedAt >= 990, `ended ${endedAt - submittedAt} ms after it was submitted`);
      const after = (json.closedAtEpoch() - submittedAt - 1000) / 1000;
      assert.ok(after < 2.5, `exited ${after.toFixed(2)} s after the deadline at the latest`);
    } finally {
      plain.stop();
      json.stop();
    }
  });

  // The runner must have set its SIGTERM handler before its deadline: 4 s is ample for a Node to start here, and a
  // runner that did not is a failure that says so, not a skip. The test ends when the tool does.
  it("ignore-term: SIGKILL 2 s after the SIGTERM it ignored → exit 124", async () => {
    const live = started(
      ["run", "--json", "--workspace", FIXTURES, writeEnvelope({ working_dir: "ignore-term", timeout_seconds: 4 })],
      { guardMs: 30_000 },
    );
    try {
      assert.equal(await live.closed, 124, live.stderr());
      const { final, submittedAt, endedAt, stdout } = jsonRun(live.stdout());
      assert.ok(stdout.startsWith("ready\n"), `the runner had not started by its 4 s deadline: ${stdout}`);
      // Without the SIGKILL the runner, deaf to SIGTERM, would not have ended at all.
      assert.match(stdout, /got SIGTERM, ignoring/);
      assert.equal(final?.status.state, "failed");
      const grace = endedAt - submittedAt - 4000;
      assert.ok(grace >= 1990, `ended ${grace} ms after the deadline, inside the 2 s grace`);
      const after = (live.closedAtEpoch() - submittedAt - 6000) / 1000;
      assert.ok(after < 3, `exited ${after.toFixed(2)} s after deadline + grace at the latest`);
    } finally {
      live.stop();
    }
  });

  it("a missing working directory → exit 4, stderr names the directory, nothing printed on stdout", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "does-not-exist" })));
    assert.equal(result.code, 4, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /does-not-exist/);
  });

  it("echo: a message without an envelope → its text and a newline on stdout, exit 0", async () => {
    const result = await runCli(run(writeMessage("hello, echo")));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "hello, echo\n");
  });

  it("echo: two text parts are joined by a newline", async () => {
    const result = await runCli(run(writeMessage(["first", "second"])));
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, "first\nsecond\n");
  });
});

describe("run --no-tui: rejections and usage", { concurrency: AT_ONCE }, () => {
  it("the escape fixture's symlinked request (→ /etc/hostname) → exit 3, nothing spawned", async () => {
    const file = writeEnvelope({
      working_dir: "escape",
      command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", ".aiwg/ops/runs/link.json"],
    });
    const result = await runCli(run(file));
    assert.equal(result.code, 3, result.stderr);
    assert.equal(result.stdout, "", "the ok runner would have printed ok");
    assert.match(result.stderr, /request_escape|resolves to/);
    assert.match(result.stderr, /nothing ran/);
  });

  it("an invalid envelope → exit 3, nothing spawned", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "ok", mode: "build", timeout_seconds: "5" })));
    assert.equal(result.code, 3, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /mode/);
    assert.match(result.stderr, /timeout_seconds/);
  });

  it("a file with a JSON syntax error → exit 3", async () => {
    const result = await runCli(run(writeJson('{ "message": ')));
    assert.equal(result.code, 3, result.stderr);
    assert.equal(result.stdout, "");
  });

  it("an unreadable file → exit 2", async () => {
    const result = await runCli(run(join(FIXTURES, "no-such-file.json")));
    assert.equal(result.code, 2, result.stderr);
    assert.equal(result.stdout, "");
    assert.match(result.stderr, /no-such-file\.json/);
  });

  // CONTRACT section 1 now: a device is not_a_file, and a file that cannot be read (too large included) exits 2.
  it("an endless file (/dev/zero) → exit 2 with not_a_file, without reading it", async () => {
    const result = await runCli(run("/dev/zero"));
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /not_a_file/);
    assert.match(result.stderr, /expected a regular file, found a character device/);
  });

  it("--workspace that is missing or a file → exit 2, and nothing runs", async () => {
    for (const dir of [join(FIXTURES, "no-such-dir"), join(FIXTURES, "ok", ".aiwg/ops/runs/req.json")]) {
      const result = await runCli(["run", "--no-tui", "--workspace", dir, writeMessage("x")]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /expected a directory/);
      assert.equal(result.stdout, "");
    }
  });

  it("usage errors → exit 2", async () => {
    const missingFile = await runCli(["run", "--no-tui"]);
    assert.equal(missingFile.code, 2, missingFile.stderr);
    const unknownOption = await runCli(["run", "--no-tui", "--frobnicate", writeMessage("x")]);
    assert.equal(unknownOption.code, 2, unknownOption.stderr);
    assert.equal(unknownOption.stdout, "");
  });
});

describe("run --no-tui: processes", { concurrency: AT_ONCE }, () => {
  it("grandchild → after the run, the grandchild it left behind is gone", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "grandchild", timeout_seconds: 30 })));
    const pid = Number(/grandchild (\d+)/.exec(result.stdout)?.[1]);
    assert.ok(pid > 0, `stdout: ${JSON.stringify(result.stdout)}`);
    try {
      assert.equal(result.code, 0, result.stderr);
      assert.ok(await goneWithin(() => pidRunning(pid)), `grandchild ${pid} still runs`);
    } finally {
      cleanupPid(pid);
    }
  });

  // The grandchild must exist before the deadline: 4 s is ample here, and a runner that did not start it in time
  // fails the test (waitFor) rather than skipping it.
  it("grandchild-hang with timeout 4 → exit 124 and the whole process group is gone", async () => {
    const live = started(run(writeEnvelope({ working_dir: "grandchild-hang", timeout_seconds: 4 })));
    let pgid = 0;
    let pid = 0;
    try {
      pid = Number((await live.waitFor(/grandchild (\d+)\n/))[1]);
      // The grandchild's group is the runner's (the runner's pid), not the tool's.
      pgid = Number(procStat(pid)?.[2] ?? 0);
      assert.ok(pgid > 0 && pgid !== process.pid, `grandchild ${pid} in group ${pgid}`);
      assert.equal(await live.closed, 124, live.stderr());
      const state = () => `stat ${JSON.stringify(procStat(pid))}; stderr ${JSON.stringify(live.stderr())}`;
      assert.ok(await goneWithin(() => pidRunning(pid)), `grandchild ${pid} still runs: ${state()}`);
      assert.ok(await goneWithin(() => groupRunning(pgid)), `process group ${pgid} still runs`);
    } finally {
      live.stop();
      if (pgid > 0) killGroup(pgid);
      if (pid > 0) cleanupPid(pid);
    }
  });

  it("stdin-eof → the command reads EOF at once, even while the tool's stdin is open and has data", async () => {
    const live = started(run(writeEnvelope({ working_dir: "stdin-eof", timeout_seconds: 30 })), {
      input: "this must not reach the command\n",
      keepStdinOpen: true,
    });
    try {
      const code = await live.closed;
      assert.equal(code, 0, live.stderr());
      assert.equal(live.stdout(), "stdin bytes 0\n");
      // Well before the 30 s deadline: the command did not wait on an open stdin.
      assert.ok(live.total() < 10, `took ${live.total().toFixed(2)} s`);
    } finally {
      live.stop();
    }
  });

  it("Ctrl-C (SIGINT to the tool) → exit 130 and the runner's process group is gone", async () => {
    const live = started(run(writeEnvelope({ working_dir: "pid-hang", timeout_seconds: 30 })));
    let pid = 0;
    try {
      pid = Number((await live.waitFor(/pid (\d+)\n/))[1]);
      assert.ok(groupRunning(pid), "the runner's group should run before Ctrl-C");
      live.child.kill("SIGINT");
      const code = await live.closed;
      assert.equal(code, 130, live.stderr());
      assert.match(live.stderr(), /cancel/);
      assert.ok(await goneWithin(() => groupRunning(pid)), `process group ${pid} still runs`);
    } finally {
      live.stop();
      if (pid > 0) killGroup(pid);
    }
  });

  it("Ctrl-C after the deadline: the task ends as timed out (exit 124), nothing crashes, and the runner's group is gone", async () => {
    const live = started(run(writeEnvelope({ working_dir: "pid-term-loud", timeout_seconds: 4 })));
    let pid = 0;
    try {
      pid = Number((await live.waitFor(/pid (\d+)\n/))[1]);
      // The runner says so when the deadline's SIGTERM reaches it: from then on the tool is in the kill grace.
      await live.waitFor(/got SIGTERM, ignoring\n/);
      live.child.kill("SIGINT");
      const code = await live.closed;
      assert.equal(code, 124, live.stderr());
      assert.doesNotMatch(live.stderr(), /internal error|CoreError|already ending/);
      assert.ok(await goneWithin(() => groupRunning(pid)), `process group ${pid} still runs`);
    } finally {
      live.stop();
      if (pid > 0) killGroup(pid);
    }
  });
});

describe("run --no-tui: output and environment", { concurrency: AT_ONCE }, () => {
  it("big: 50 MiB of multi-byte UTF-8 arrive byte-identical", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "big", timeout_seconds: 120 })), {
      env: { FIXTURE_BYTES: "52428800" },
      timeoutMs: 60_000,
    });
    assert.equal(result.code, 0, result.stderr.slice(0, 2000));
    const expected = /sha256 ([0-9a-f]{64})/.exec(result.stderr)?.[1];
    assert.ok(expected, `no sha256 line on stderr: ${JSON.stringify(result.stderr.slice(0, 500))}`);
    assert.equal(result.stdoutBytes.length, 52428800);
    assert.equal(createHash("sha256").update(result.stdoutBytes).digest("hex"), expected);
  });

  it("env: the AIWG_* variables, PATH unchanged, argv and cwd", async () => {
    const path = `${dirname(process.execPath)}:/usr/bin:/bin`;
    const file = writeEnvelope(
      { working_dir: "env", mode: "assess", timeout_seconds: 30 },
      { text: ["line one", "line two"] },
    );
    const result = await runCli(run(file), { env: { PATH: path } });
    assert.equal(result.code, 0, result.stderr);
    const seen = JSON.parse(result.stdout) as Record<string, unknown>;
    assert.equal(seen.AIWG_A2A_ADAPTER, "sandbox-agent-runner");
    assert.equal(seen.AIWG_A2A_ADAPTER_MODE, "assess");
    assert.equal(seen.AIWG_A2A_MESSAGE, "line one\nline two");
    assert.match(String(seen.AIWG_A2A_TASK_ID), /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(seen.AIWG_MISSION_ID, seen.AIWG_A2A_TASK_ID);
    assert.equal(typeof seen.AIWG_A2A_INSTANCE_ID, "string");
    assert.notEqual(seen.AIWG_A2A_INSTANCE_ID, "");
    assert.equal(seen.PATH, path, "PATH must not change (no node_modules/.bin)");
    assert.deepEqual(seen.argv, ["--request", ".aiwg/ops/runs/req.json"]);
    assert.equal(seen.cwd, realpathSync(join(FIXTURES, "env")));
  });
});

describe("run --no-tui: what section 2 refuses never runs (exit 3), what cannot be read is exit 2", {
  concurrency: AT_ONCE,
}, () => {
  const URI = "https://agentic-sandbox.aiwg.io/extensions/adapter-command/v1";
  /** The `ok` fixture prints "ok": empty stdout means nothing ran. */
  const refused = async (file: string, code: string) => {
    const result = await runCli(run(file));
    assert.equal(result.code, 3, result.stderr);
    assert.equal(result.stdout, "", "the ok runner would have printed ok");
    assert.match(result.stderr, new RegExp(`\\[${code}\\]`));
    assert.match(result.stderr, /nothing ran/);
  };

  for (const key of [`${URI}/`, URI.replace("https:", "http:"), URI.toUpperCase(), URI.replace(/v1$/, "v2")]) {
    it(`an envelope under ${key} → exit 3 (envelope_key_mismatch), not an echo that succeeds`, async () => {
      const params = envelopeParams("ok");
      const message = params.message as { metadata: Record<string, unknown> };
      message.metadata = { [key]: message.metadata[URI] };
      await refused(writeJson(params), "envelope_key_mismatch");
    });
  }

  it("a text part with a NUL → exit 3 (message_nul)", async () => {
    await refused(writeEnvelope({ working_dir: "ok" }, { text: "a\u0000b" }), "message_nul");
  });
  it("a joined text over 64 KiB → exit 3 (message_too_large)", async () => {
    await refused(
      writeEnvelope({ working_dir: "ok" }, { text: ["x".repeat(40_000), "y".repeat(40_000)] }),
      "message_too_large",
    );
  });
  it("1001 parts → exit 3 (too_many_parts)", async () => {
    await refused(writeEnvelope({ working_dir: "ok" }, { text: Array(1001).fill("x") }), "too_many_parts");
  });
  it("an envelope hidden behind a second extension key → exit 3 (duplicate_key)", async () => {
    const text = JSON.stringify(envelopeParams("ok")).replace(
      `"${URI}":`,
      `"${URI}":{"adapter":"sandbox-agent-runner","mode":"assess","command":[]},"${URI}":`,
    );
    await refused(writeJson(text), "duplicate_key");
  });

  it("a FIFO with no writer → exit 2 (not_a_file) at once, and a directory → exit 2 (not_a_file)", async (t) => {
    const dir = dirname(writeJson({}));
    const fifo = join(dir, "fifo.json");
    if (spawnSync("mkfifo", [fifo]).status !== 0) return t.skip("mkfifo is not available");
    for (const path of [fifo, dir]) {
      const result = await runCli(run(path), { timeoutMs: 15_000 });
      assert.equal(result.signal, null, `run blocked on ${path}`);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, /expected a regular file, found a (FIFO|directory).*\[not_a_file\]/);
    }
  });
  it("a file over 4 MiB or not UTF-8 → exit 2", async () => {
    for (const [bytes, code] of [
      [Buffer.alloc(4 * 1024 * 1024 + 1, 0x20), "file_too_large"],
      [Buffer.from([0x7b, 0xe9, 0x7d]), "not_utf8"],
    ] as const) {
      const result = await runCli(run(writeJson(bytes)));
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, new RegExp(code));
    }
  });

  it("control characters of the file are escaped in what run prints for a person", async () => {
    const hostile = "/etc\u001b]0;pwned\u0007\u001b[2J\r\u009b31m";
    const result = await runCli(run(writeEnvelope({ working_dir: hostile })));
    assert.equal(result.code, 3, result.stderr);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for control characters is the point
    assert.doesNotMatch(result.stderr.replaceAll("\n", ""), /[\u0000-\u001f\u007f-\u009f]/);
    assert.ok(result.stderr.includes("\\u001b]0;pwned\\u0007"), result.stderr);
  });
});

describe("run: a rejection says every problem with its line:col, once (issue 49)", () => {
  it("a working_dir outside the workspace and a bad request: both, at their lines; the last line does not stutter", async () => {
    const file = writeJson(
      {
        adapter: "sandbox-agent-runner",
        mode: "plan",
        command: ["node", ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs", "--request", "../req.json"],
        working_dir: "/etc",
      },
      "two-problems",
    );
    const result = await runCli(run(file));
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /\d+:\d+ command\[3\]: .*\[request_bad_segment\]/);
    assert.match(result.stderr, /\d+:\d+ working_dir: .*\[working_dir_outside\]/);
    assert.match(result.stderr, /^adapter-command: rejected: \d+ problems \(above\); nothing ran$/m);
    assert.doesNotMatch(result.stderr, /adapter-command: adapter-command/);
  });

  it("a working_dir outside the workspace alone (a check of the workspace, not of the schema) has its line:col", async () => {
    const result = await runCli(run(writeEnvelope({ working_dir: "/etc" })));
    assert.equal(result.code, 3, result.stderr);
    assert.match(result.stderr, /error\s+\d+:\d+ envelope\.working_dir: .*\[working_dir_outside\]/);
  });
});
