// Where the bearer token comes from (CONTRACT 8.1): --token-file, else ADAPTER_COMMAND_TOKEN, else a fresh 256-bit
// token written with mode 0600 to DIR/token (--state-dir) or to a private temporary directory. docs/security.md.
import { randomBytes } from "node:crypto";
import { closeSync, constants, fchmodSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkedToken, readTokenFile, TokenError } from "../io/bearer-token.js";
import { TOKEN_ENV } from "../io/token-match.js";

export { TokenError };

export interface Token {
  value: string;
  /** The file that holds it, or null when it came from the environment. */
  file: string | null;
  /** Warnings for the log (never the token itself). */
  warnings: string[];
  /** Removes what was created for the token (a private temporary directory); nothing otherwise. */
  cleanup(): void;
}

/** Writes a fresh token to `dir/token` with mode 0600, never through a symlink planted there. */
function writeFreshToken(dir: string): string {
  const value = randomBytes(32).toString("base64url");
  const path = join(dir, "token");
  const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, `${value}\n`);
  } finally {
    closeSync(fd);
  }
  return value;
}

export function obtainToken(options: { tokenFile?: string; stateDir?: string; env?: NodeJS.ProcessEnv }): Token {
  const none = () => {};
  if (options.tokenFile !== undefined) {
    const path = resolve(options.tokenFile);
    const { value, warnings } = readTokenFile(path);
    return { value, file: path, warnings, cleanup: none };
  }
  const fromEnv = (options.env ?? process.env)[TOKEN_ENV];
  if (fromEnv !== undefined && fromEnv.trim() !== "") {
    return { value: checkedToken(fromEnv.trim(), TOKEN_ENV), file: null, warnings: [], cleanup: none };
  }
  if (options.stateDir !== undefined) {
    const dir = resolve(options.stateDir);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const value = writeFreshToken(dir);
    return { value, file: join(dir, "token"), warnings: [], cleanup: none };
  }
  // mkdtemp creates the directory with mode 0700: only this user can list or open it.
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-"));
  const value = writeFreshToken(dir);
  return {
    value,
    file: join(dir, "token"),
    warnings: [],
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
