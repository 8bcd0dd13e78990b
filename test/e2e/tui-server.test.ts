// `run --server` and `tasks watch` in a real terminal (tmux): the same screen as a local run (the header names what
// runs, the bar counts down to the deadline), its prompt answered by a key and sent over hitl-prompt/v1 or by
// another client, and Ctrl-C cancelling the task on the server (GetTask then says canceled). And the screen on a
// narrow terminal, where no line may be one the terminal had to wrap.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import stringWidth from "string-width";
import { FIXTURES, runCli } from "../helpers/cli.js";
import { writeEnvelope } from "../helpers/envelopes.js";
import { type HttpServer, send10, startHttp } from "../helpers/http-server.js";
import { HAS_TMUX, Tmux } from "../helpers/tmux.js";

const NO_TMUX = "tmux is not installed (CI installs it through .ci/run)";
const tmux = new Tmux("tui-server");
let panes = 0;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

/** The lines of the pane's history (wrapped rows joined) wider than `columns`: lines the terminal had to wrap. */
function wrapped(history: string, columns: number): string[] {
  return history.split("\n").filter((line) => stringWidth(line.trimEnd()) > columns);
}

describe("run --server on the screen (tmux)", { timeout: 180_000 }, () => {
  let server: HttpServer;
  before(async () => {
    if (HAS_TMUX) server = await startHttp(["--settle-ms", "100", "--quiet"]);
  });
  after(async () => {
    tmux.kill();
    await server?.close();
  });

  const start = (binding: string, fields: { working_dir: string } & Record<string, unknown>): string => {
    panes += 1;
    const pane = `server-${panes}`;
    const file = writeEnvelope({ timeout_seconds: 60, ...fields });
    tmux.binary(pane, [
      "run",
      "--server",
      server.url,
      "--token-file",
      String(server.start.tokenFile),
      "--binding",
      binding,
      file,
    ]);
    return pane;
  };

  for (const binding of ["jsonrpc", "rest"]) {
    it(`${binding}: the prompt box, answered with y: ✔ completed, EXIT=0`, async (t) => {
      if (!HAS_TMUX) return t.skip(NO_TMUX);
      const pane = start(binding, { working_dir: "ask", input_mode: "text-line" });
      await tmux.waitFor(
        pane,
        "the prompt box",
        (screen) => screen.includes("╭") && screen.includes("Continue? [y/N]"),
      );
      tmux.keys(pane, "y");
      const done = await tmux.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
      assert.match(done, /✔ completed · exit code 0/, done);
      assert.match(done, /» answered "y" to Continue\? \[y\/N\]/, done);
      assert.match(done, /^EXIT=0$/m, done);
    });
  }

  it("Ctrl-C cancels the task on the server: ✘ canceled, EXIT=130, GetTask says canceled", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = start("jsonrpc", { working_dir: "hang" });
    const running = await tmux.waitFor(pane, "the live area", (screen) => /working \d+s/.test(screen));
    // The id comes from the server, not from the screen: how the header wraps depends on the checkout's path.
    const listed = await server.call("ListTasks", { status: "TASK_STATE_WORKING" });
    assert.equal(listed.tasks.length, 1, `${JSON.stringify(listed)}\n${running}`);
    const id = listed.tasks[0].id as string;
    tmux.keys(pane, "C-c");
    const done = await tmux.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    assert.match(done, /✘ canceled/, done);
    assert.match(done, /^EXIT=130$/m, done);
    const task = await server.call("GetTask", { id });
    assert.equal(task.status.state, "TASK_STATE_CANCELED");
  });

  // The screen shows what a local one shows (issue 49): what runs, the request, the deadline bar, another client's
  // answer; and on a narrow terminal no line is one the terminal had to wrap.
  const auth = () => ["--server", server.url, "--token-file", String(server.start.tokenFile)];
  const pane = () => {
    panes += 1;
    return `server-${panes}`;
  };
  /** The one task of the server in `state` (the tests run one after another, each ending its task). */
  const onlyTask = async (state: string): Promise<string> => {
    const listed = await server.call("ListTasks", { status: state });
    assert.equal(listed.tasks.length, 1, JSON.stringify(listed));
    return listed.tasks[0].id as string;
  };
  /** Ctrl-C, then the pane's command ends as canceled (130). */
  const cancelled = async (name: string) => {
    tmux.keys(name, "C-c");
    const done = await tmux.waitFor(name, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    assert.match(done, /^EXIT=130$/m, done);
  };
  const HEADER = /adapter-command sandbox-agent-runner · assess · \.aiwg\/ops\/runs\/req\.json/;
  const BAR = /working \d+s [█░]+ [\dms]+ left · Ctrl-C cancels/;

  it("run --server: the header names the adapter, the mode and the request; the state line has the deadline bar", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const name = pane();
    const file = writeEnvelope({ working_dir: "hang", mode: "assess", timeout_seconds: 60 });
    tmux.binary(name, ["run", ...auth(), file]);
    const running = await tmux.waitFor(name, "the live area", (screen) => /working \d+s/.test(screen));
    assert.match(running, HEADER, running);
    assert.doesNotMatch(running, /adapter-command echo/, running);
    assert.match(running, BAR, running);
    await cancelled(name);
  });

  it("tasks watch: the same header and deadline bar as run", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const sent = await server.call(
      "SendMessage",
      send10("go", {
        envelope: { working_dir: "hang", mode: "assess", timeout_seconds: 60 },
        configuration: { returnImmediately: true },
      }),
    );
    const id = sent.task.id as string;
    const name = pane();
    tmux.binary(name, ["tasks", "watch", id, ...auth()]);
    const running = await tmux.waitFor(name, "the live area", (screen) => /working \d+s/.test(screen));
    assert.match(running, HEADER, running);
    assert.ok(running.includes(id), running);
    assert.match(running, BAR, running);
    await cancelled(name);
  });

  it("an answer sent by another client (tasks answer) is shown as the screen's own would be", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const name = pane();
    const file = writeEnvelope({ working_dir: "ask", input_mode: "text-line", timeout_seconds: 60 });
    tmux.binary(name, ["run", ...auth(), file]);
    await tmux.waitFor(name, "the prompt box", (screen) => screen.includes("╭") && screen.includes("Continue? [y/N]"));
    const id = await onlyTask("TASK_STATE_INPUT_REQUIRED");
    const answered = await runCli(["tasks", "answer", id, "y", ...auth()], { timeoutMs: 30_000 });
    assert.equal(answered.code, 0, answered.stderr);
    const done = await tmux.waitFor(name, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    assert.match(done, /» answered "y" to Continue\? \[y\/N\] \(from another client\)/, done);
    assert.match(done, /✔ completed · exit code 0/, done);
    assert.match(done, /^EXIT=0$/m, done);
  });

  for (const columns of [50, 40]) {
    it(`run at ${columns} columns: no line wraps, paths shortened from the left, the id whole, "Ctrl-C cancels" kept`, async (t) => {
      if (!HAS_TMUX) return t.skip(NO_TMUX);
      const name = pane();
      const file = writeEnvelope({ working_dir: "hang", mode: "assess", timeout_seconds: 60 });
      tmux.binary(name, ["run", "--workspace", FIXTURES, file], { columns });
      const running = await tmux.waitFor(name, "the live area", (screen) => /working \d+s/.test(screen));
      assert.match(running, /Ctrl-C cancels/, running);
      assert.match(running, UUID, running);
      // The working directory, whole or (longer than the pane) its end after an ellipsis.
      assert.match(running, /^in (…)?\S*\/hang\s*$/m, running);
      await cancelled(name);
      assert.deepEqual(wrapped(tmux.history(name), columns), [], tmux.history(name));
    });
  }
});
