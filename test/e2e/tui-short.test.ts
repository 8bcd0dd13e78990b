// `run` in a terminal of 6 rows or fewer (CONTRACT section 6): the screen never clears the terminal or its
// scrollback (ESC[2J, ESC[3J), and the prompt still shows and is answered. Every byte the binary writes to the pane
// is kept with tmux's pipe-pane. Skipped, with a message, where tmux is not installed.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { HAS_TMUX, quote, Tmux } from "../helpers/tmux.js";

const server = new Tmux("tui-short");
const dir = mkdtempSync(join(tmpdir(), "adapter-command-tui-short-"));
after(() => {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe("run in a short terminal (tmux)", { timeout: 60_000 }, () => {
  for (const rows of [3, 4, 6]) {
    it(`${rows} rows: the prompt is answered, and nothing erases the screen or the scrollback`, async (t) => {
      if (!HAS_TMUX) return t.skip("tmux is not installed (CI installs it through .ci/run)");
      const pane = `short-${rows}`;
      const bytes = join(dir, `${pane}.out`);
      // The command waits for a first Enter, so that every byte it writes reaches pipe-pane.
      server.binary(pane, ["run", "--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"], {
        envPrefix: "read go; ",
        rows,
      });
      server.run("pipe-pane", "-o", "-t", pane, `cat >> ${quote(bytes)}`);
      server.keys(pane, "Enter");
      await server.waitFor(pane, "the prompt", (screen) => screen.includes("Apply these 3 changes? [y/N]"));
      server.keys(pane, "y");
      const done = await server.waitFor(pane, "EXIT=", (screen) => /^EXIT=\d+/m.test(screen));
      assert.match(done, /^EXIT=0$/m, done);
      const written = readFileSync(bytes, "latin1");
      assert.ok(written.includes("completed"), "pipe-pane saw the run");
      assert.ok(!written.includes("\u001b[3J"), "no ESC[3J: the scrollback is never erased");
      assert.ok(!written.includes("\u001b[2J"), "no ESC[2J: the screen is never cleared");
      const history = server.history(pane);
      assert.match(history, /sandbox-agent-runner · assess · \.aiwg\/ops\/runs\/assess-confirm\.json/);
      assert.match(history, /» answered "y" to Apply these 3 changes\? \[y\/N\]/);
    });
  }
});
