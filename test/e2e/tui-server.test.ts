// `run --server` in a real terminal (tmux): the same screen as a local run, its prompt answered by a key and sent
// over hitl-prompt/v1, and Ctrl-C cancelling the task on the server (GetTask then says canceled).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { writeEnvelope } from "../helpers/envelopes.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";
import { HAS_TMUX, Tmux } from "../helpers/tmux.js";

const NO_TMUX = "tmux is not installed (CI installs it through .ci/run)";
const tmux = new Tmux("tui-server");
let panes = 0;

describe("run --server on the screen (tmux)", { timeout: 90_000 }, () => {
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
    const id = /task ([0-9a-f-]{36})/.exec(running)?.[1];
    assert.ok(id, running);
    tmux.keys(pane, "C-c");
    const done = await tmux.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+$/m.test(screen));
    assert.match(done, /✘ canceled/, done);
    assert.match(done, /^EXIT=130$/m, done);
    const task = await server.call("GetTask", { id });
    assert.equal(task.status.state, "TASK_STATE_CANCELED");
  });
});
