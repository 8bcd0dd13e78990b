// `run` in a real terminal (CONTRACT section 6): tmux gives the binary a pty, keys go in with send-keys and the
// screen comes back with capture-pane. Skipped, with a message, where tmux is not installed.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FIXTURES, sleep } from "../helpers/cli.js";
import { commandFor, REQUEST, writeJson } from "../helpers/envelopes.js";
import { pidRunning, procStat } from "../helpers/processes.js";
import { HAS_TMUX, quote, Tmux } from "../helpers/tmux.js";

const NO_TMUX = "tmux is not installed (CI installs it through .ci/run)";
const server = new Tmux("tui");
let sessions = 0;

/** Starts `adapter-command <args>` in a new pane (stdin from `input`, if given); returns the pane's name. */
function start(args: string[], input?: string, envPrefix = ""): string {
  sessions += 1;
  const name = `tui-${sessions}`;
  const command = `${envPrefix}${[process.execPath, "bin/adapter-command.js", ...args].map(quote).join(" ")}`;
  server.start(name, input === undefined ? command : `printf %s ${quote(input)} | ${command}`);
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
    assert.match(atPrompt, /examples\/workspace/);
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
    const hanging = await server.waitFor(pane, "the runner's output (hanging)", (screen) =>
      /^\s+hanging\s*$/m.test(screen),
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
