// `run` in a real terminal (CONTRACT section 6): tmux gives the binary a pty, keys go in with send-keys and the
// screen comes back with capture-pane. Skipped, with a message, where tmux is not installed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FIXTURES, sleep } from "../helpers/cli.js";
import { commandFor, REQUEST, writeEnvelope, writeJson } from "../helpers/envelopes.js";
import { pidRunning, procStat } from "../helpers/processes.js";
import { HAS_TMUX, Tmux } from "../helpers/tmux.js";

const NO_TMUX = "tmux is not installed (CI installs it through .ci/run)";
const server = new Tmux("tui");
let sessions = 0;

/** Starts `adapter-command <args>` in a new pane (stdin from `input`, if given); returns the pane's name. */
function start(args: string[], input?: string, envPrefix = ""): string {
  sessions += 1;
  const name = `tui-${sessions}`;
  server.binary(name, args, { ...(input === undefined ? {} : { input }), envPrefix });
  return name;
}

/** The PIDs of the processes below `root` (children, grandchildren…), read from /proc. */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = procStat(entry)?.[1];
    if (ppid !== undefined) parents.set(Number(entry), Number(ppid));
  }
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift() as number;
    for (const [child, parent] of parents) {
      if (parent === pid) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function cwdOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return undefined;
  }
}

/** The pane's tty modes as `stty -a` prints them (padded with spaces), or undefined where stty cannot read it. */
function ttyModes(tty: string): string | undefined {
  const result = spawnSync("stty", ["-a", "-F", tty], { encoding: "utf8" });
  if (result.status !== 0) return undefined;
  return ` ${result.stdout.replace(/[;\n]/g, " ")} `;
}

/** `pgrep -f <pattern>` as PIDs (none when nothing matches). */
function pgrep(pattern: string): number[] {
  const result = spawnSync("pgrep", ["-f", pattern], { encoding: "utf8" });
  if (result.error) return [];
  return result.stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map(Number);
}

/** Runners a test saw; killed in `after` should a failing test leave one behind. */
const runners: number[] = [];

after(() => {
  server.kill();
  for (const pid of runners) {
    try {
      if (pidRunning(pid)) process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
});

describe("run in a terminal (tmux)", { timeout: 60_000 }, () => {
  it("shows the prompt box, y answers it, and the summary says completed (exit 0)", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = start(["run", "--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"]);
    const PROMPT = "Apply these 3 changes? [y/N]";
    const atPrompt = await server.waitFor(pane, "the prompt box", (screen) => {
      const lines = screen.split("\n");
      const top = lines.findIndex((line) => line.includes("╭"));
      const bottom = lines.findIndex((line) => line.includes("╰"));
      return top !== -1 && bottom > top && lines.slice(top + 1, bottom).some((line) => line.includes(PROMPT));
    });
    // The envelope, the live output and the state with the time left.
    assert.match(atPrompt, /sandbox-agent-runner · assess · \.aiwg\/ops\/runs\/assess-confirm\.json/);
    assert.match(atPrompt, /examples\/workspace · task [0-9a-f-]{36}/);
    const taskId = /· task ([0-9a-f-]{36})/.exec(atPrompt)?.[1];
    assert.match(atPrompt, /check {2}update the cycle index \.\.\. ok/);
    assert.match(atPrompt, /press y or n; Enter sends "n"/);
    assert.match(atPrompt, /input-required \d+s .* left/);

    server.run("send-keys", "-t", pane, "y");
    const done = await server.waitFor(
      pane,
      "✔ completed and EXIT=0",
      (screen) => screen.includes("✔ completed") && /^EXIT=\d+/m.test(screen),
    );
    assert.match(done, /✔ completed · exit code 0/);
    assert.match(done, new RegExp(`✔ completed · .* · task ${taskId}`), "the summary names the task of the header");
    assert.match(done, /^EXIT=0$/m, `the exit status:\n${done}`);
    assert.match(done, /» answered "y" to Apply these 3 changes\? \[y\/N\]/);
    assert.doesNotMatch(done, /╭/, "the prompt box is gone at the end");
  });

  it("Ctrl-C cancels a hanging command: canceled, EXIT=130, no runner left, the cursor back", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const envelope = writeJson(
      {
        adapter: "sandbox-agent-runner",
        mode: "plan",
        working_dir: "hang",
        timeout_seconds: 30,
        command: commandFor(REQUEST),
      },
      "tui-hang",
    );
    const pane = start(["run", "--workspace", FIXTURES, envelope]);
    const panePid = Number(server.run("display-message", "-p", "-t", pane, "#{pane_pid}").trim());
    assert.ok(panePid > 0, "no pane pid");

    const paneTty = server.run("display-message", "-p", "-t", pane, "#{pane_tty}").trim();
    // The output comes first; the live area once Ink has loaded (it puts the terminal in raw mode).
    const hanging = await server.waitFor(
      pane,
      "the runner's output (hanging) and the live area",
      (screen) => /^\s+hanging\s*$/m.test(screen) && /working \d+s/.test(screen),
    );
    assert.match(hanging, /working \d+s/);
    const rawWhileRunning = ttyModes(paneTty);

    // The runners this pane started (other tests may run the same fixture at the same time).
    const hangDir = join(FIXTURES, "hang");
    const ours = descendants(panePid).filter((pid) => cwdOf(pid) === hangDir);
    runners.push(...ours);
    const matching = pgrep(`${hangDir}/`);
    assert.ok(ours.length > 0, `no runner found below the pane (pgrep -f found ${matching.join(", ") || "none"})`);
    assert.ok(
      ours.every((pid) => matching.includes(pid)),
      `pgrep -f ${hangDir}/ should see the runner ${ours.join(", ")} (saw ${matching.join(", ") || "none"})`,
    );

    server.run("send-keys", "-t", pane, "C-c");
    const done = await server.waitFor(
      pane,
      "canceled and EXIT=…",
      (screen) => screen.includes("canceled") && /^EXIT=\d+/m.test(screen),
    );
    assert.match(done, /✘ canceled/);
    assert.match(done, /^EXIT=130$/m, `the exit status:\n${done}`);

    // No runner of ours is left (a zombie counts as gone), and pgrep no longer sees it.
    const until = Date.now() + 3000;
    while (ours.some(pidRunning) && Date.now() < until) await sleep(50);
    assert.deepEqual(ours.filter(pidRunning), [], "the runner outlived the cancel");
    const left = pgrep(`${hangDir}/`).filter((pid) => ours.includes(pid) && pidRunning(pid));
    assert.deepEqual(left, [], "pgrep still sees the runner");

    // The terminal is restored: the cursor shows again and the shell's echo printed on a fresh line.
    const cursor = server.run("display-message", "-p", "-t", pane, "#{cursor_flag}").trim();
    assert.equal(cursor, "1", "the cursor is still hidden");
    // …and the line discipline is back to cooked mode (Ink had put it in raw mode).
    const modes = ttyModes(paneTty);
    if (modes !== undefined) {
      if (rawWhileRunning !== undefined)
        assert.ok(rawWhileRunning.includes("-icanon"), `not raw while running: ${rawWhileRunning}`);
      for (const mode of ["icanon", "echo", "isig"]) {
        assert.ok(modes.includes(` ${mode} `), `the terminal was left with -${mode}: ${modes}`);
      }
    }
    // EXIT=130 was printed by the shell after the binary ended; nothing of it is left below the pane either.
    const stillRunning = descendants(panePid).filter((pid) => {
      try {
        return pidRunning(pid) && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("adapter-command.js");
      } catch {
        return false;
      }
    });
    assert.deepEqual(stillRunning, [], "adapter-command did not exit");
  });

  it("in a terminal with stdin piped (echo y | run …), the answer comes from stdin and the run completes", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = start(
      ["run", "--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"],
      "y\n",
    );
    const done = await server.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+/m.test(screen));
    assert.match(done, /^EXIT=0$/m, `the exit status:\n${done}`);
    assert.match(done, /answered "Apply these 3 changes\? \[y\/N\]" with "y"/);
    assert.match(done, /confirmed/);
  });

  it("every line of a 300-line run stays in the scrollback, in order, the long one wrapped and whole", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const file = writeEnvelope({ working_dir: "many-lines", input_mode: "text-line", timeout_seconds: 30 });
    const pane = start(["run", "--workspace", FIXTURES, file]);
    // Half the lines come before the live area is up, half after (through it): both ways keep every line.
    await server.waitFor(pane, "the prompt box", (screen) => screen.includes("press y or n"));
    server.keys(pane, "y");
    await server.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    const history = server.history(pane);
    const numbered = history.split("\n").filter((line) => /^ {2}line \d{3} of 300$/.test(line));
    assert.deepEqual(
      numbered.map((line) => Number(line.slice(7, 10))),
      Array.from({ length: 300 }, (_, i) => i + 1),
      `lines missing or out of order; the scrollback:\n${history}`,
    );
    assert.ok(history.includes(`  ${"L".repeat(247)}END`), "the 250-character line is cut");
    assert.doesNotMatch(history, /lines above/);
    assert.match(history, /^EXIT=0$/m);
    assert.equal(history.split("\n").filter((line) => line.startsWith("adapter-command ")).length, 1, "one header");
  });

  it("stderr written after a prompt line is shown after it: arrival order across the two streams", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = start(["run", "--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"]);
    await server.waitFor(pane, "the prompt box", (screen) => screen.includes("press y or n"));
    server.keys(pane, "n");
    await server.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    const lines = server.history(pane).split("\n");
    const prompt = lines.findIndex((line) => /^ {2}Apply these 3 changes\? \[y\/N\]/.test(line));
    const answer = lines.findIndex((line) => line.startsWith('» answered "n"'));
    const refusal = lines.indexOf("│ not confirmed");
    assert.ok(prompt !== -1 && answer > prompt && refusal > answer, `out of order:\n${lines.join("\n")}`);
  });

  it("narrowing then widening the pane redraws cleanly: one header, one prompt box", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = start(["run", "--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"]);
    await server.waitFor(pane, "the prompt box", (screen) => screen.includes("press y or n"));
    const count = (text: string, where: string) => where.split("\n").filter((line) => line.includes(text)).length;
    // Each width in turn, once the screen is clean at it: one box, its whole top border as wide as the pane, and one
    // state line. A wider border that the terminal has only wrapped at this width starts a row the same way, but is
    // no redraw; a copy left by a redraw gone wrong, unwrapped as the pane widens, is the width of the pane too, but
    // then there are two boxes. Resizing again before the clean screen would test the terminal's reflow of a
    // reflow, not the tool.
    const cleanAt = (columns: number) => (s: string) =>
      s
        .split("\n")
        .some(
          (line) => line.startsWith("╭") && line.endsWith("╮") && line.length >= columns - 2 && line.length <= columns,
        ) &&
      count("╭", s) === 1 &&
      count("╰", s) === 1 &&
      count("Ctrl-C cancels", s) === 1;
    for (const columns of [60, 40, 100, 45, 100]) {
      server.resize(pane, columns);
      await server.waitFor(pane, `one box and one state line, redrawn at ${columns} columns`, cleanAt(columns));
    }
    const history = server.history(pane);
    assert.equal(count("adapter-command sandbox-agent-runner", history), 1, `headers:\n${history}`);
    server.keys(pane, "y");
    const done = await server.waitFor(pane, "EXIT=", (s) => /^EXIT=\d+$/m.test(s));
    assert.match(done, /^EXIT=0$/m);
  });

  it("the final frame ends with a newline, even in a pane it fills", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    sessions += 1;
    const pane = `tui-${sessions}`;
    const file = writeEnvelope({ working_dir: "exit3", timeout_seconds: 30 });
    server.binary(pane, ["run", "--workspace", FIXTURES, file], { rows: 6 });
    const done = await server.waitFor(pane, "EXIT=", (screen) => screen.includes("EXIT="));
    assert.match(done, /✘ failed · exit code 3/);
    assert.match(done, /^EXIT=1$/m, `the shell's line does not start a line of its own:\n${done}`);
  });

  it("a second Ctrl-C kills a runner that ignores SIGTERM at once, before the 2 s grace could have", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const file = writeEnvelope({ working_dir: "pid-ignore-term", timeout_seconds: 60 });
    const pane = start(["run", "--workspace", FIXTURES, file]);
    const running = await server.waitFor(
      pane,
      "the runner's pid and the live area",
      (screen) => /pid \d+/.test(screen) && screen.includes("Ctrl-C cancels"),
    );
    const pid = Number(/pid (\d+)/.exec(running)?.[1]);
    runners.push(pid);
    const first = Date.now();
    server.keys(pane, "C-c");
    await server.waitFor(pane, "the cancel acknowledged", (screen) => screen.includes("Ctrl-C again kills it now"));
    assert.ok(pidRunning(pid), "the runner ignores SIGTERM: it is still there after the first Ctrl-C");
    server.keys(pane, "C-c");
    const done = await server.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    const took = Date.now() - first;
    assert.match(done, /^EXIT=130$/m, `the exit status:\n${done}`);
    assert.match(done, /✘ canceled/);
    // The grace period alone would have ended it 2 s after the first Ctrl-C.
    assert.ok(took < 2000, `ended ${took} ms after the first Ctrl-C`);
    assert.equal(pidRunning(pid), false, "the runner outlived the second Ctrl-C");
  });

  it("in a CI job, even on a terminal, run passes the output through instead of drawing a screen", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = start(
      ["run", "--workspace", "examples/workspace", "examples/envelopes/plan.json"],
      undefined,
      "CI=true ",
    );
    const done = await server.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+/m.test(screen));
    assert.match(done, /^EXIT=0$/m, `the exit status:\n${done}`);
    assert.match(done, /^plan: 3 steps, nothing changed$/m);
    assert.doesNotMatch(done, /✔ completed/, "no summary screen");
  });
});
