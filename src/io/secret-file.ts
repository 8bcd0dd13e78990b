// Reading a small secret file named by an option (--token-file, --signing-key): a regular file only, never blocking
// on a FIFO, at most `maxBytes`, with a warning when other users can read it (docs/security.md).
import { closeSync, constants, fstatSync, openSync, readSync, statSync } from "node:fs";
import { kindOf } from "./file-kind.js";

export class SecretFileError extends Error {}

export interface SecretFile {
  bytes: Buffer;
  /** A warning for the log when group or others may read the file (never its content). */
  warning: string | undefined;
}

/** `path` as given with `flag` (e.g. "--token-file"), or a SecretFileError saying what was expected and found. */
export function readSecretFile(path: string, flag: string, maxBytes: number): SecretFile {
  let fd: number;
  try {
    // stat first: opening a FIFO with no writer would wait for one (as validate reads its files, input-file.ts).
    const before = statSync(path);
    if (!before.isFile())
      throw new SecretFileError(`expected ${flag} ${path} to be a regular file, found ${kindOf(before)}`);
    // O_NONBLOCK, and fstat of what was opened: a path swapped for a FIFO after the stat still cannot block us.
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    if (error instanceof SecretFileError) throw error;
    throw new SecretFileError(`cannot read ${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile())
      throw new SecretFileError(`expected ${flag} ${path} to be a regular file, found ${kindOf(opened)}`);
    const buffer = Buffer.alloc(maxBytes + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      length += read;
      if (read === 0 || length === buffer.length) break;
    }
    if (length > maxBytes)
      throw new SecretFileError(`expected ${flag} ${path} of at most ${maxBytes} bytes, found more`);
    const mode = opened.mode & 0o777;
    const warning =
      mode & 0o077 ? `${flag} ${path} can be read by other users (mode ${mode.toString(8)}); chmod 600 it` : undefined;
    return { bytes: buffer.subarray(0, length), warning };
  } finally {
    closeSync(fd);
  }
}
