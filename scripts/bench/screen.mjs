// Figure 5: how soon `run` shows its screen in a terminal. From starting the binary in a tmux pane to its first
// lines there (the header, written before Ink has loaded), and to the live area Ink draws (the state line), against
// `node -e` printing one word into a pane the same way. Skipped where tmux is not installed.
import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { BIN, log, median, now, ROOT, WORKSPACE } from "./lib.mjs";

const ENVELOPE = new URL("./envelopes/ask-once.json", import.meta.url).pathname;
const SOCKET = `adapter-command-bench-${process.pid}`;
const quote = (arg) => `'${arg.replace(/'/g, `'\\''`)}'`;
const tmux = (...args) => execFileSync("tmux", ["-L", SOCKET, ...args], { encoding: "utf8", stdio: "pipe" });

let panes = 0;

/** Starts `command` in a new pane and returns, for each of `marks`, the ms until its text was on the pane. */
function timeTo(command, marks, timeoutMs = 15_000) {
  panes += 1;
  const name = `bench-${panes}`;
  // A person's terminal: no CI variables (with them the tool prints plainly instead of drawing a screen).
  const line = `env -u CI -u CONTINUOUS_INTEGRATION -u XTERM_VERSION ${command.map(quote).join(" ")}; sleep 30`;
  const seen = {};
  const t0 = now();
  tmux("new-session", "-d", "-s", name, "-x", "100", "-y", "30", "-c", ROOT, line);
  try {
    while (Object.keys(seen).length < Object.keys(marks).length) {
      const elapsed = now() - t0;
      if (elapsed > timeoutMs) throw new Error(`nothing of ${Object.keys(marks).join(", ")} after ${timeoutMs} ms`);
      const screen = tmux("capture-pane", "-p", "-t", name);
      for (const [mark, text] of Object.entries(marks))
        if (!(mark in seen) && screen.includes(text)) seen[mark] = now() - t0;
    }
  } finally {
    tmux("kill-session", "-t", name);
  }
  return seen;
}

export async function screen({ quick }) {
  if (spawnSync("tmux", ["-V"], { stdio: "ignore" }).status !== 0) {
    log("screen: tmux is not installed, skipped");
    return [
      {
        name: "startup_screen_ms",
        value: null,
        unit: "ms",
        baseline: null,
        ratio: null,
        goal: "< 3 x node -e 0",
        meets: null,
        skipped: "tmux not installed",
      },
    ];
  }
  const runs = quick ? 5 : 11;
  const node = [process.execPath, "-e", "process.stdout.write('ready')"];
  const run = [process.execPath, BIN, "run", "--workspace", WORKSPACE, ENVELOPE];
  const samples = { node: [], header: [], live: [] };
  try {
    // A session that outlives the measured ones: without it the server quits with each, racing the next start.
    tmux("new-session", "-d", "-s", "keep", "sleep 600");
    timeTo(node, { ready: "ready" });
    timeTo(run, { header: "adapter-command sandbox-agent-runner", live: "Ctrl-C cancels" }); // warm the file cache
    for (let i = 0; i < runs; i++) {
      samples.node.push(timeTo(node, { ready: "ready" }).ready);
      const times = timeTo(run, { header: "adapter-command sandbox-agent-runner", live: "Ctrl-C cancels" });
      samples.header.push(times.header);
      samples.live.push(times.live);
    }
  } finally {
    let socket = "";
    try {
      socket = tmux("display-message", "-p", "#{socket_path}").trim();
    } catch {
      // no server left
    }
    spawnSync("tmux", ["-L", SOCKET, "kill-server"], { stdio: "ignore" });
    if (socket !== "") rmSync(socket, { force: true });
  }
  const baseline = median(samples.node);
  const value = median(samples.header);
  const live = median(samples.live);
  log(
    `screen: first lines ${value.toFixed(1)} ms, live area ${live.toFixed(1)} ms vs node -e ${baseline.toFixed(1)} ms`,
  );
  return [
    {
      name: "startup_screen_ms",
      value,
      unit: "ms",
      baseline,
      ratio: value / baseline,
      goal: "< 3 x node -e 0",
      meets: value / baseline < 3,
      live_area_ms: live,
      live_area_ratio: live / baseline,
      runs,
    },
  ];
}
