// Regression tests for robustness fixes, end to end through the built binary: a deeply nested request line, a
// second signal during the bridge's shutdown, `run` losing its reader (EPIPE, SIGHUP), backpressure inside a
// batch, and NO_COLOR in a terminal (CONTRACT sections 1, 5.1, 5.5 and 6).
import assert from "node:assert/strict";
import type { ChildProcess, ChildProcessWithoutNullStreams } from "node:child_process";
import { spawn } from "node:child_process";
import { after, describe, it } from "node:test";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { BIN, FIXTURES, ROOT, sleep, startCli } from "../helpers/cli.js";
import { envelopeParams, writeEnvelope } from "../helpers/envelopes.js";
import { startWithPid } from "../helpers/fixture-output.js";
import { groupGoneWithin, groupRunning, killGroup, rssKiB } from "../helpers/processes.js";
import { ciVariables, HAS_TMUX, quote, Tmux } from "../helpers/tmux.js";
import type { Wire } from "../helpers/wire.js";

const bridges: RpcBridge[] = [];
const groups: number[] = [];
const clis: ChildProcessWithoutNullStreams[] = [];
const shells: ChildProcess[] = [];
/** PIDs of tools started below a shell. */
const tools: number[] = [];

after(async () => {
  for (const bridge of bridges.splice(0)) {
    await bridge.close(3000).catch(() => {});
    if (!bridge.exitStatus) bridge.child.kill("SIGKILL");
  }
  for (const child of clis.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  for (const child of shells.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
  for (const pid of tools.splice(0)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const pgid of groups.splice(0)) killGroup(pgid);
  tmux.kill();
});

async function bridgeOf(...args: Parameters<typeof startBridge>): Promise<RpcBridge> {
  const bridge = startBridge(...args);
  bridges.push(bridge);
  await bridge.ready();
  return bridge;
}

/** `run --no-tui` on a fixture, started in the background; its output is collected as it comes. */
function startRun(fixture: string) {
  const file = writeEnvelope({ working_dir: fixture, timeout_seconds: 60 });
  const child = startCli(["run", "--no-tui", "--workspace", FIXTURES, file]);
  clis.push(child);
  child.stdin.on("error", () => {});
  child.stdin.end();
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (text: string) => {
    stderr += text;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stderr: () => stderr };
}

/** Resolves with `promise`, or rejects after `ms` saying `what`. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Polls `read` until it returns a value; fails after `ms`. */
async function until<T>(read: () => T | undefined, ms: number, what: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() >= end) assert.fail(`timed out after ${ms} ms waiting for ${what()}`);
    await sleep(25);
  }
}

describe("serve --stdio: a request nested 300 000 levels deep", { timeout: 30_000 }, () => {
  it("gets -32600, and the bridge keeps serving: getCard works, a running task stays running and cancelable", async () => {
    const bridge = await bridgeOf();
    const { task, pgid } = await startWithPid(bridge, "pid-hang", groups);

    const depth = 300_000;
    const params = JSON.stringify(envelopeParams("ok")).replace(/"metadata":\{/, `"metadata":{"deep":§,`);
    assert.ok(params.includes("§"), params);
    const line = `{"jsonrpc":"2.0","id":"deep","method":"message/send","params":${params.replace(
      "§",
      `${"[".repeat(depth)}${"]".repeat(depth)}`,
    )}}`;
    assert.ok(line.length > 600_000 && line.length < 1024 * 1024, `line of ${line.length} bytes`);
    bridge.sendLine(line);

    // A bridge that dies on the line fails the test at once, with its stderr, instead of after a timeout.
    const died = bridge.waitExit(15_000).then(
      (exit) =>
        assert.fail(`the bridge exited (${JSON.stringify(exit)}) instead of answering; stderr:\n${bridge.stderr}`),
      () => new Promise<never>(() => {}),
    );
    const response = await Promise.race([bridge.nextRawResponse(), died]);
    assert.equal(response.id, "deep", JSON.stringify(response));
    assert.equal(response.error?.code, -32600, JSON.stringify(response));
    assert.match(JSON.stringify(response.error), /expected at most 100 levels of nesting, found 300003/);

    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    assert.equal(bridge.exitStatus, undefined, `the bridge is still running; stderr:\n${bridge.stderr}`);

    const now = await bridge.call("tasks/get", { id: task.id });
    assert.equal(now.status.state, "working");
    assert.ok(groupRunning(pgid), "the pid-hang runner still runs");
    const canceled = await bridge.call("tasks/cancel", { id: task.id });
    assert.equal(canceled.status.state, "canceled");
    assert.ok(await groupGoneWithin(pgid, 3000), `group ${pgid} is gone after the cancel`);
    assert.deepEqual(bridge.protocolProblems, []);
    assert.doesNotMatch(bridge.stderr, /RangeError/);
  });
});

describe("serve --stdio: a second SIGINT during the shutdown", { timeout: 30_000 }, () => {
  it("exits 0 and kills a runner that ignores SIGTERM at once, well before the 2 s grace ends", async () => {
    const bridge = await bridgeOf();
    const { task, pgid } = await startWithPid(bridge, "pid-term-loud", groups);

    bridge.child.kill("SIGINT");
    // The runner says when the first shutdown's SIGTERM has come (its stream is still followed).
    await bridge.eventsUntil(task.id, (event) =>
      Boolean(event.artifact?.parts.some((part: { text?: string }) => part.text?.includes("got SIGTERM"))),
    );
    assert.ok(groupRunning(pgid), "the runner ignores the SIGTERM of the first shutdown");
    bridge.child.kill("SIGINT");
    const second = Date.now();

    const gone = await groupGoneWithin(pgid, 5000);
    const goneAfter = Date.now() - second;
    const exit = await bridge.waitExit(8000);
    assert.deepEqual(exit, { code: 0, signal: null }, `stderr:\n${bridge.stderr}`);
    assert.ok(gone, `group ${pgid} is gone`);
    assert.ok(goneAfter < 1200, `the group was gone ${goneAfter} ms after the second SIGINT (want ~1 s at most)`);
    const final = await bridge.nextEvent(task.id, (e) => e.kind === "status-update" && e.final === true, 1000);
    assert.equal(final.status.state, "canceled");
    assert.deepEqual(bridge.protocolProblems, []);
  });
});

describe("run --no-tui: nobody reads the output any more", { timeout: 30_000 }, () => {
  it("a reader that closes its end after 20 bytes (EPIPE): the tool exits and the runner's group is gone", async () => {
    // A real pipe into `head -c 20`, as a shell makes it. (Node's own stdio "pipes" are socketpairs, whose
    // ~200 KiB buffer can swallow the whole output before the reader closes, so no write would ever fail.)
    const file = writeEnvelope({ working_dir: "write-then-idle", timeout_seconds: 60 });
    const script = '{ "$0" "$@" & echo "tool-pid=$!" >&2; wait $!; echo "tool-exit=$?" >&2; } | head -c 20 >/dev/null';
    const shell = spawn("sh", ["-c", script, process.execPath, BIN, "run", "--no-tui", "--workspace", FIXTURES, file], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    shells.push(shell);
    let stderr = "";
    shell.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    const shellExited = new Promise<void>((resolve) => shell.once("exit", () => resolve()));
    const number = (pattern: RegExp) => () => {
      const value = Number(pattern.exec(stderr)?.[1]);
      return value > 0 ? value : undefined;
    };
    const toolPid = await until(number(/tool-pid=(\d+)/), 15_000, () => `the tool's pid; stderr:\n${stderr}`);
    tools.push(toolPid);
    const pgid = await until(number(/^pid (\d+)/m), 15_000, () => `the runner's pid on stderr; stderr:\n${stderr}`);
    groups.push(pgid);
    // The pipeline (so the tool too) ends within a few seconds of head closing its end.
    await within(shellExited, 5000, `the tool's exit (stderr:\n${stderr})`);
    assert.match(stderr, /tool-exit=\d+/, stderr);
    assert.ok(await groupGoneWithin(pgid, 3000), `group ${pgid} is gone after the tool exited; stderr:\n${stderr}`);
  });

  it("SIGHUP (the terminal went away): the tool exits and the runner's group is gone", async () => {
    const run = startRun("pid-hang");
    let stdout = "";
    run.child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    const pgid = await until(
      () => {
        const pid = Number(/pid (\d+)/.exec(stdout)?.[1]);
        return pid > 0 ? pid : undefined;
      },
      15_000,
      () => `the runner's pid on stdout; stdout so far:\n${stdout}\nstderr:\n${run.stderr()}`,
    );
    groups.push(pgid);
    run.child.kill("SIGHUP");
    const exit = await within(run.exited, 5000, `the tool's exit after SIGHUP (stderr:\n${run.stderr()})`);
    assert.ok(
      await groupGoneWithin(pgid, 3000),
      `group ${pgid} is gone after the tool exited (${JSON.stringify(exit)}); stderr:\n${run.stderr()}`,
    );
  });
});

describe("serve --stdio: backpressure inside a batch", { timeout: 60_000 }, () => {
  it("a stream held back by a slow batch neighbour is not buffered; afterwards every byte arrives", async (t) => {
    const FLOOD = 209_715_200;
    const stdoutBytes = new Map<string, number>();
    const bridge = await bridgeOf({
      env: { FIXTURE_BYTES: String(FLOOD) },
      onEvent: (event) => {
        if (event.kind !== "artifact-update") return true;
        if (event.artifact.artifactId === "stdout") {
          let bytes = stdoutBytes.get(event.taskId) ?? 0;
          for (const part of event.artifact.parts) bytes += part.text.length; // 1-byte "x" lines: length = bytes
          stdoutBytes.set(event.taskId, bytes);
        }
        return false; // 200 MiB need not be kept
      },
    });
    const batch = [
      {
        jsonrpc: "2.0",
        id: "b-stream",
        method: "message/stream",
        params: envelopeParams("flood", { envelope: { timeout_seconds: 120 } }),
      },
      {
        jsonrpc: "2.0",
        id: "b-send",
        method: "message/send",
        params: envelopeParams("hang", { envelope: { timeout_seconds: 3 } }),
      },
    ];
    const sentAt = Date.now();
    bridge.sendLine(JSON.stringify(batch));
    const answer = bridge.nextRawResponse(20_000);
    let answeredAt: number | undefined;
    void answer.then(
      () => {
        answeredAt = Date.now();
      },
      () => {},
    );

    const samples: number[] = [];
    while (answeredAt === undefined && Date.now() - sentAt < 20_000) {
      const rss = rssKiB(bridge.pid);
      if (rss !== undefined) samples.push(rss);
      await sleep(100);
    }
    const responses = await answer;
    const tookMs = (answeredAt as number) - sentAt;
    t.diagnostic(`batch answered after ${tookMs} ms; bridge VmRSS samples (KiB): ${samples.join(", ")}`);
    assert.ok(tookMs >= 2500, `the batch waits for its blocking send's 3 s timeout (answered after ${tookMs} ms)`);
    assert.ok(samples.length >= 10, `VmRSS could be read (${samples.length} samples)`);
    const peakMiB = Math.max(...samples) / 1024;
    assert.ok(peakMiB < 250, `the bridge's RSS stays under 250 MiB while the batch is pending (peak ${peakMiB} MiB)`);

    assert.ok(Array.isArray(responses) && responses.length === 2, JSON.stringify(responses).slice(0, 2000));
    const byId = new Map((responses as Wire[]).map((response) => [response.id, response]));
    const send = byId.get("b-send")?.result;
    assert.equal(send?.status?.state, "failed", JSON.stringify(byId.get("b-send"))?.slice(0, 2000));
    const stream = byId.get("b-stream")?.result;
    assert.ok(stream?.id, JSON.stringify(byId.get("b-stream"))?.slice(0, 2000));

    const final = await bridge.nextEvent(stream.id, (e) => e.kind === "status-update" && e.final === true, 45_000);
    assert.equal(final.status.state, "completed", JSON.stringify(final.status));
    assert.equal(stdoutBytes.get(stream.id), FLOOD, "every byte of the flood's stdout reached the events");
    assert.deepEqual(bridge.protocolProblems, []);
  });
});

// ---- NO_COLOR in a terminal (tmux) ----------------------------------------------------------------------

const tmux = new Tmux("robustness");

/** Runs the plan example in a new pane; `noColor` puts NO_COLOR=1 in front of the command. */
function startPane(name: string, noColor: boolean): void {
  // Colour settings of whoever runs the tests must not decide the outcome either.
  const unset = [...ciVariables(), ...Object.keys(process.env).filter((k) => k === "NO_COLOR" || k === "FORCE_COLOR")];
  const line = [process.execPath, "bin/adapter-command.js", "run", "--workspace", "examples/workspace"]
    .concat("examples/envelopes/plan.json")
    .map(quote)
    .join(" ");
  tmux.start(name, `${noColor ? "NO_COLOR=1 " : ""}${line}`, { unset, lingerSeconds: 30 });
}

/** Waits for EXIT= in the pane; returns the screen with its escape codes (capture-pane -e). */
async function finalScreen(name: string): Promise<string> {
  await tmux.waitFor(name, "EXIT=", (screen) => /^EXIT=\d+/m.test(screen), 20_000);
  return tmux.capture(name, true);
}

/** The SGR colour codes (foreground or background, 8/16/256/RGB) in a screen captured with -e. */
function colourCodes(screen: string): string[] {
  const found: string[] = [];
  const sgr = new RegExp(`${String.fromCharCode(27)}\\[([\\d;:]*)m`, "g");
  for (const match of screen.matchAll(sgr)) {
    const params = (match[1] ?? "").split(/[;:]/).map(Number);
    if (params.some((p) => (p >= 30 && p <= 38) || (p >= 40 && p <= 48) || (p >= 90 && p <= 97) || p >= 100)) {
      found.push(JSON.stringify(match[0]));
    }
  }
  return found;
}

describe("run in a terminal (tmux): NO_COLOR", { timeout: 40_000 }, () => {
  it("NO_COLOR=1: no colour codes on the screen; without it: colours", async (t) => {
    if (!HAS_TMUX) return t.skip("tmux is not installed");
    startPane("no-color", true);
    startPane("color", false);
    const [plain, coloured] = await Promise.all([finalScreen("no-color"), finalScreen("color")]);
    assert.match(plain, /^EXIT=0\s*$/m, `the NO_COLOR run:\n${plain}`);
    assert.match(coloured, /^EXIT=0\s*$/m, `the coloured run:\n${coloured}`);
    assert.match(plain, /completed/, plain);
    assert.deepEqual(colourCodes(plain), [], `colour codes with NO_COLOR=1; the screen:\n${JSON.stringify(plain)}`);
    assert.ok(
      colourCodes(coloured).length > 0,
      `no colours without NO_COLOR; the screen:\n${JSON.stringify(coloured)}`,
    );
  });
});
