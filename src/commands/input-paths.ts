// What `validate` is given, as the files to check: a file as it is, `-` as stdin, and a directory as its
// `*.json` files, recursively and sorted (CONTRACT section 1).
import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Problem } from "../core/envelope/problems.js";
import { errnoWords } from "./errno-words.js";

export const STDIN = "-";

export type InputPath =
  | { file: string }
  /** A directory that gave no file to check, and why. */
  | { file: string; problem: Problem };

export async function expandInputs(args: readonly string[]): Promise<InputPath[]> {
  const out: InputPath[] = [];
  for (const arg of args) {
    if (arg === STDIN) {
      out.push({ file: arg });
      continue;
    }
    const stats = await stat(arg).catch(() => undefined);
    if (!stats?.isDirectory()) {
      out.push({ file: arg }); // reading it says what is wrong with it, if anything
      continue;
    }
    const listed = await jsonFilesUnder(arg);
    if ("problem" in listed) out.push({ file: arg, problem: listed.problem });
    else if (listed.files.length === 0) {
      out.push({
        file: arg,
        problem: {
          path: "",
          code: "no_json_files",
          message: "expected *.json files in this directory or below it, found none",
        },
      });
    } else out.push(...listed.files.map((file) => ({ file })));
  }
  return out;
}

/**
 * The `*.json` entries below `dir`, sorted. Symbolic links to directories are not followed (a link back up would
 * never end); anything else named `*.json` is listed, and reading it tells a FIFO from a file.
 */
async function jsonFilesUnder(dir: string): Promise<{ files: string[] } | { problem: Problem }> {
  const files: string[] = [];
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch (error) {
      const message = `expected a directory it can list, found ${errnoWords(error)} at ${current}`;
      return { problem: { path: "", code: "file_unreadable", message } };
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) pending.push(path);
      else if (entry.name.endsWith(".json") && !(entry.isSymbolicLink() && (await isDirectory(path)))) files.push(path);
    }
  }
  return { files: files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

const isDirectory = (path: string) =>
  stat(path).then(
    (stats) => stats.isDirectory(),
    () => false,
  );
