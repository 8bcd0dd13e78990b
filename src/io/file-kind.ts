// What a path is when it is not a regular file, in words: every option or argument that names a file says so alike.
import type { Stats } from "node:fs";

export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isCharacterDevice()) return "a character device";
  if (stats.isBlockDevice()) return "a block device";
  if (stats.isSocket()) return "a socket";
  return "something that is not a regular file";
}
