// A private tmux server for one test file: the binary gets a real terminal (a pty), keys go in with send-keys and
// the screen comes back with capture-pane.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { ROOT, sleep } from "./cli.js";

export const HAS_TMUX = spawnSync("tmux", ["-V"], { stdio: "ignore" }).status === 0;

/** One argument for `sh -c`, quoted. */
export const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;

/** The CI variables set here: a person's terminal has none (the tool shows no live screen when one is set). */
export const ciVariables = () =>
  Object.keys(process.env).filter((key) => key === "CI" || key === "CONTINUOUS_INTEGRATION" || key.startsWith("CI_"));

/**
 * What a pane runs without: the CI variables, and XTERM_VERSION, which says "a terminal that does not reflow" where
 * tmux does (a test started from xterm would hand it down to the panes).
 */
const paneUnset = () => [...ciVariables(), ...("XTERM_VERSION" in process.env ? ["XTERM_VERSION"] : [])];

export class Tmux {
  private readonly socket: string;
  private used = false;

  constructor(name: string) {
    this.socket = `adapter-command-${name}-${process.pid}-${Date.now()}`;
  }

  run(...args: string[]): string {
    this.used = true;
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  }

  /**
   * Starts `shellLine` in a new pane (100×30 unless told) in the repository, without the variables in `unset`. The
   * pane outlives the command, so its last screen stays: it prints `EXIT=<code>` and waits `lingerSeconds`.
   */
  start(
    session: string,
    shellLine: string,
    { unset = paneUnset(), lingerSeconds = 60, columns = 100, rows = 30 } = {},
  ): void {
    const env = unset.map((key) => `-u ${quote(key)}`).join(" ");
    const command = `env ${env} sh -c ${quote(shellLine)}; echo EXIT=$?; sleep ${lingerSeconds}`;
    this.run("new-session", "-d", "-s", session, "-x", String(columns), "-y", String(rows), "-c", ROOT, command);
  }

  /** Starts the built `adapter-command <args>` in a new pane, with `input` piped to its stdin when given. */
  binary(
    session: string,
    args: string[],
    { input, envPrefix = "", ...options }: { input?: string; envPrefix?: string; columns?: number; rows?: number } = {},
  ): void {
    const command = `${envPrefix}${[process.execPath, "bin/adapter-command.js", ...args].map(quote).join(" ")}`;
    this.start(session, input === undefined ? command : `printf %s ${quote(input)} | ${command}`, options);
  }

  /** The pane's screen; with `escapes`, its colour and style codes too. */
  capture(session: string, escapes = false): string {
    return this.run("capture-pane", "-p", ...(escapes ? ["-e"] : []), "-t", session);
  }

  /** Everything the pane holds, its scrollback first, with the rows of a wrapped line joined into one. */
  history(session: string): string {
    return this.run("capture-pane", "-p", "-J", "-S", "-", "-t", session);
  }

  /** Keys by tmux name (`Enter`, `BSpace`, `Left`, `C-c`); `literal` text goes in as typed, in one burst. */
  keys(session: string, ...keys: string[]): void {
    this.run("send-keys", "-t", session, ...keys);
  }

  literal(session: string, text: string): void {
    this.run("send-keys", "-t", session, "-l", text);
  }

  resize(session: string, columns: number, rows = 30): void {
    this.run("resize-window", "-t", session, "-x", String(columns), "-y", String(rows));
  }

  /** Polls the pane until `done` holds for its text; fails after `ms` with the last screen. */
  async waitFor(session: string, what: string, done: (screen: string) => boolean, ms = 15_000): Promise<string> {
    const until = Date.now() + ms;
    let screen = "";
    for (;;) {
      try {
        screen = this.capture(session);
      } catch (error) {
        screen = `(capture-pane failed: ${String(error)})`;
      }
      if (done(screen)) return screen;
      if (Date.now() >= until) assert.fail(`timed out after ${ms} ms waiting for ${what}; the screen:\n${screen}`);
      await sleep(100);
    }
  }

  /** Ends the server and removes its socket (nothing to do if it was never used). */
  kill(): void {
    if (!this.used) return;
    let server = "";
    try {
      server = this.run("display-message", "-p", "#{socket_path}").trim();
    } catch {
      // no server left
    }
    spawnSync("tmux", ["-L", this.socket, "kill-server"], { stdio: "ignore" });
    if (server !== "") rmSync(server, { force: true });
  }
}
