// Where the card signing key comes from (docs/reference.md, "Signed cards"): --signing-key FILE, else the key kept
// in the state dir (DIR/signing-key.pem, made on first use with mode 0600), else a fresh key for this process.
import { randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fchmodSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { type CardSigningKey, freshSigningKey, parseSigningKey, SigningKeyError } from "../a2a/signing-key.js";
import { readSecretFile, SecretFileError } from "../io/secret-file.js";

/** A key file is a few hundred bytes; anything far larger is not one. */
const MAX_KEY_FILE_BYTES = 16 * 1024;
export const KEPT_KEY_FILE = "signing-key.pem";

export interface ObtainedKey {
  key: CardSigningKey;
  /** Where it came from, for the log. */
  source: string;
  warnings: string[];
}

/** The key, or a SigningKeyError saying what was expected and what was found. */
export async function obtainSigningKey(options: { signingKey?: string; stateDir?: string }): Promise<ObtainedKey> {
  if (options.signingKey !== undefined) {
    const path = resolve(options.signingKey);
    const { key, warnings } = await readKeyFile(path, "--signing-key");
    return { key, source: `--signing-key ${path}`, warnings };
  }
  if (options.stateDir !== undefined) return keptKey(join(resolve(options.stateDir), KEPT_KEY_FILE));
  return { key: (await freshSigningKey()).key, source: "a fresh key for this process", warnings: [] };
}

async function readKeyFile(path: string, flag: string): Promise<{ key: CardSigningKey; warnings: string[] }> {
  let text: string;
  let warnings: string[];
  try {
    const file = readSecretFile(path, flag, MAX_KEY_FILE_BYTES);
    text = file.bytes.toString("utf8");
    warnings = file.warning ? [file.warning] : [];
  } catch (error) {
    throw error instanceof SecretFileError ? new SigningKeyError(error.message) : error;
  }
  return { key: await parseSigningKey(text, `${flag} ${path}`), warnings };
}

/** The state dir's key: read when it is there, else made and written whole (a temporary file linked into place). */
async function keptKey(path: string): Promise<ObtainedKey> {
  const source = `the key kept in ${path}`;
  if (!exists(path)) {
    const { key, pem } = await freshSigningKey();
    if (writeOnce(path, pem)) return { key, source: `${source} (new)`, warnings: [] };
  }
  try {
    const { key, warnings } = await readKeyFile(path, "the kept signing key");
    return { key, source, warnings };
  } catch (error) {
    if (!(error instanceof SigningKeyError)) throw error;
    throw new SigningKeyError(
      `${error.message}; move ${path} away to make a new key (the cards' kid then changes), or give --signing-key`,
    );
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw new SigningKeyError(`cannot read the kept signing key ${path}: ${(error as NodeJS.ErrnoException).code}`);
  }
}

/** Writes `pem` to `path` with mode 0600 unless a file is there by then; false when one was (it is read instead). */
function writeOnce(path: string, pem: string): boolean {
  const temporary = `${path}.${randomBytes(6).toString("hex")}.tmp`;
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  try {
    const fd = openSync(temporary, flags, 0o600);
    try {
      fchmodSync(fd, 0o600);
      writeSync(fd, pem);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temporary, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw new SigningKeyError(
      `cannot keep the signing key in ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`,
    );
  } finally {
    try {
      unlinkSync(temporary);
    } catch {}
  }
}
