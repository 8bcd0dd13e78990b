// The screen's input line in a real terminal (CONTRACT section 6): keys go in through tmux, as a person's terminal
// sends them (a burst, a paste, backspace after an emoji, arrows), and the `ask-text` runner prints what it read.
// Also --answer on the screen, and typed answers in line mode (--no-tui, --json) on a terminal.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { FIXTURES } from "../helpers/cli.js";
import { writeEnvelope } from "../helpers/envelopes.js";
import { HAS_TMUX, Tmux } from "../helpers/tmux.js";

const NO_TMUX = "tmux is not installed (CI installs it through .ci/run)";
const server = new Tmux("tui-input");
let panes = 0;

after(() => server.kill());

/** Starts `adapter-command run <args>` in a new pane; returns the pane's name. */
function startRun(args: string[]): string {
  panes += 1;
  const pane = `input-${panes}`;
  server.binary(pane, ["run", ...args]);
  return pane;
}

/** `run` of the `ask-text` runner: a prompt answered with typed text. */
function startAsk(extra: string[] = []): string {
  const file = writeEnvelope({ working_dir: "ask-text", input_mode: "text-line", timeout_seconds: 60 });
  return startRun([...extra, "--workspace", FIXTURES, file]);
}

/** `run` of the example that asks "Apply these 3 changes? [y/N]". */
const startExample = (extra: string[]) =>
  startRun([...extra, "--workspace", "examples/workspace", "examples/envelopes/assess-interactive.json"]);

/** Waits for the prompt box's input line, so keys reach the screen and not the terminal before it. */
const atInputLine = (pane: string) =>
  server.waitFor(pane, "the input line", (screen) => /Type the new name:/.test(screen) && screen.includes("› "));

/** Waits for the run to end; returns what the runner printed it got (`got "<json>" bytes <hex>`). */
async function got(pane: string): Promise<{ text: string; hex: string; screen: string }> {
  const screen = await server.waitFor(pane, "EXIT=", (s) => /^EXIT=\d+$/m.test(s));
  assert.match(screen, /^EXIT=0$/m, `the exit status:\n${screen}`);
  const match = /got ("(?:[^"\\]|\\.)*") bytes ([0-9a-f]*)/.exec(screen);
  assert.ok(match, `the runner did not say what it got:\n${screen}`);
  return { text: JSON.parse(match[1] as string) as string, hex: match[2] as string, screen };
}

describe("the input line (tmux)", { timeout: 60_000 }, () => {
  it("a burst of typing and Enter sends all that was typed", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startAsk();
    await atInputLine(pane);
    server.keys(pane, "B", "o", "b", "Enter");
    assert.equal((await got(pane)).text, "Bob");
  });

  it("a paste with a trailing carriage return sends the line", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startAsk();
    await atInputLine(pane);
    server.literal(pane, "Alice\r");
    const result = await got(pane);
    assert.equal(result.text, "Alice");
    assert.match(result.screen, /» answered "Alice" to Are you sure\? Type the new name:/);
  });

  it("backspace removes a whole emoji: Bøb é 😀 ⌫ sends Bøb é and a space, no half character", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startAsk();
    await atInputLine(pane);
    server.literal(pane, "Bøb é 😀");
    await server.waitFor(pane, "the emoji on the input line", (screen) => screen.includes("😀"));
    server.keys(pane, "BSpace");
    await server.waitFor(pane, "the emoji gone", (screen) => !screen.includes("😀"));
    server.keys(pane, "Enter");
    const result = await got(pane);
    assert.equal(result.text, "Bøb é ");
    assert.equal(result.hex, Buffer.from("Bøb é ").toString("hex"));
  });

  it("left and right arrows move the cursor: text goes in where it is", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startAsk();
    await atInputLine(pane);
    server.literal(pane, "Bb");
    server.keys(pane, "Left");
    server.literal(pane, "o");
    server.keys(pane, "Left", "Left", "Right", "Right", "Right");
    server.literal(pane, "!");
    server.keys(pane, "Enter");
    assert.equal((await got(pane)).text, "Bob!");
  });

  it("--answer values answer the first prompts on the screen, before anything is typed", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startAsk(["--answer", "from the flag"]);
    const result = await got(pane);
    assert.equal(result.text, "from the flag");
    assert.match(result.screen, /» answered "from the flag" to Are you sure\? Type the new name: \(--answer\)/);
  });

  it("--answer y answers a yes/no prompt on the screen", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startExample(["--answer", "y"]);
    const done = await server.waitFor(pane, "EXIT=", (s) => /^EXIT=\d+$/m.test(s));
    assert.match(done, /^EXIT=0$/m, `the exit status:\n${done}`);
    assert.match(done, /confirmed/);
    assert.match(done, /✔ completed/);
  });
});

describe("line mode on a terminal (tmux)", { timeout: 60_000 }, () => {
  it("--no-tui: the prompt is answered by typing y and Enter", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startExample(["--no-tui"]);
    await server.waitFor(pane, "the prompt", (screen) => screen.includes("Apply these 3 changes? [y/N]"));
    server.keys(pane, "y", "Enter");
    const done = await server.waitFor(pane, "EXIT=", (s) => /^EXIT=\d+$/m.test(s));
    assert.match(done, /^EXIT=0$/m, `the exit status:\n${done}`);
    assert.match(done, /answered "Apply these 3 changes\? \[y\/N\]" with "y"/);
    assert.match(done, /^confirmed$/m);
    assert.match(done, /^adapter-command: completed/m, "the closing line");
  });

  it("--json: a typed line answers too, and stderr says a prompt waits for one", async (t) => {
    if (!HAS_TMUX) return t.skip(NO_TMUX);
    const pane = startAsk(["--json"]);
    await server.waitFor(pane, "the hint", (screen) => screen.includes("waits: type an answer and press Enter"));
    server.literal(pane, "typed\r");
    const done = await server.waitFor(pane, "EXIT=", (s) => /^EXIT=\d+$/m.test(s));
    assert.match(done, /^EXIT=0$/m, `the exit status:\n${done}`);
    assert.match(done, /answered "Are you sure\? Type the new name:" with "typed"/);
  });
});
