// Spare room on the state dir's disk (docs/security.md "Trusting nothing on disk", issue 25 item 3). When the disk
// fills, output stops being written and this file is removed, so that the states and ends of the tasks still fit: a
// task that completes on a full disk is never reported `runtime_restarted` after a restart.
import { closeSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export const RESERVE_FILE = "state.reserve";
/** Room for the rows of a few hundred task ends (a row and its index entries take a few pages of the log). */
export const RESERVE_BYTES = 512 * 1024;

/** Makes (or keeps) the reserve; its path, or undefined (with a warning) when the disk has no room for it. */
export function makeReserve(dir: string, warn: (line: string) => void): string | undefined {
  const path = join(dir, RESERVE_FILE);
  let fd: number | undefined;
  try {
    fd = openSync(path, "w", 0o600);
    // Written, not only sized: a sparse file would give nothing back when removed.
    const block = Buffer.alloc(64 * 1024);
    for (let written = 0; written < RESERVE_BYTES; ) written += writeSync(fd, block);
    return path;
  } catch (error) {
    rmSync(path, { force: true });
    warn(
      `no room for ${RESERVE_BYTES / 1024} KiB of spare space beside ${join(dir, "state.db")} (${(error as Error).message}); on a full disk a task's end may then not be recorded`,
    );
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
