// Small file systems for tests of a full or read-only disk: a tmpfs mounted on a new directory, where this user may
// mount (root); elsewhere the tests that need one are skipped.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Tmpfs {
  dir: string;
  /** Remounts it read-only (or read-write again). */
  readOnly(on: boolean): void;
  unmount(): void;
}

/** A tmpfs of `size` (e.g. "2m") on a new directory, or undefined where mounting is not allowed. */
export function mountTmpfs(size: string): Tmpfs | undefined {
  const dir = mkdtempSync(join(tmpdir(), "adapter-command-tmpfs-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], { stdio: "ignore" });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return undefined;
  }
  return {
    dir,
    readOnly: (on) => {
      execFileSync("mount", ["-o", `remount,${on ? "ro" : "rw"}`, dir], { stdio: "ignore" });
    },
    unmount: () => {
      execFileSync("umount", ["-l", dir], { stdio: "ignore" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
