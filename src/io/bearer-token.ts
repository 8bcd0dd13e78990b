// A bearer token from a file or the environment, checked the same way by `serve --http` and by the client (CONTRACT
// 8.1; docs/security.md): a regular file of at most 4 KiB, never a FIFO, and only the characters RFC 6750 allows,
// so a token with a line break inside can never reach a header, nor an error that would print it.
import { lstatSync } from "node:fs";
import { readSecretFile, SecretFileError } from "./secret-file.js";

/** The characters RFC 6750 allows in a bearer token (b64token). */
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;
export const MAX_TOKEN_FILE_BYTES = 4096;

export class TokenError extends Error {}

/** What to do when --token-file names no file: a command that makes it (docs/serving.md), the path quoted only when plain. */
function makeTokenFile(path: string): string {
  const target = /^[\w./-]+$/.test(path) ? path : "token";
  return `make one with: node -e "require('node:fs').writeFileSync('${target}', require('node:crypto').randomBytes(32).toString('hex'), { mode: 0o600 })" (or leave out --token-file for a fresh token at each start)`;
}

/** `value` when it is a token; else a TokenError that names `where` and never the value. */
export function checkedToken(value: string, where: string): string {
  if (value === "") throw new TokenError(`expected a token in ${where}, found nothing`);
  if (!B64TOKEN.test(value))
    throw new TokenError(
      `expected a token of letters, digits and - . _ ~ + / (then = padding) in ${where}, found other characters`,
    );
  return value;
}

/** The token in `path` (the `--token-file` option), and a warning when other users can read the file. */
export function readTokenFile(path: string): { value: string; warnings: string[] } {
  try {
    const { bytes, warning } = readSecretFile(path, "--token-file", MAX_TOKEN_FILE_BYTES);
    return {
      value: checkedToken(bytes.toString("utf8").trim(), `--token-file ${path}`),
      warnings: warning ? [warning] : [],
    };
  } catch (error) {
    if (!(error instanceof SecretFileError)) throw error;
    // A missing file is most often the first try of a README line: say how to make one.
    const missing = lstatSync(path, { throwIfNoEntry: false }) === undefined;
    throw new TokenError(missing ? `${error.message}; ${makeTokenFile(path)}` : error.message);
  }
}
