// Reads an input file for `validate` and `run`: only a regular file (a FIFO or a device is refused without being
// opened for a blocking read), at most MAX_FILE_BYTES even if it grows, and only if it is UTF-8, as JSON must be.
import { isUtf8 } from "node:buffer";
import { constants, type Stats } from "node:fs";
import { open, stat } from "node:fs/promises";
import type { Problem } from "../core/envelope/problems.js";
import { kindOf } from "../io/file-kind.js";
import { errnoWords } from "./errno-words.js";

const MAX_FILE_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

export type InputText =
  | { ok: true; text: string }
  /** Could not be read, or read and found too large or not UTF-8: either way there is no text to analyse. */
  | { ok: false; problem: Problem };

const unreadable = (error: unknown): InputText => ({
  ok: false,
  problem: { path: "", code: "file_unreadable", message: `expected a readable file, found ${errnoWords(error)}` },
});

const notAFile = (stats: Stats): InputText => ({
  ok: false,
  problem: { path: "", code: "not_a_file", message: `expected a regular file, found ${kindOf(stats)}` },
});

export async function readInputFile(file: string, maxBytes = MAX_FILE_BYTES): Promise<InputText> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // stat first: opening a FIFO with no writer would wait for one, and a socket cannot be opened at all.
    const before = await stat(file);
    if (!before.isFile()) return notAFile(before);
    // O_NONBLOCK, and fstat of what was opened: a path swapped for a FIFO after the stat still cannot block us.
    const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      const opened = await handle.stat();
      if (!opened.isFile()) return notAFile(opened);
      while (size <= maxBytes) {
        const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, maxBytes + 1 - size));
        const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
        if (bytesRead === 0) break;
        chunks.push(chunk.subarray(0, bytesRead));
        size += bytesRead;
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    return unreadable(error);
  }
  return decoded(chunks, size, maxBytes);
}

/** Reads a stream (`validate -` reads stdin) the same way: at most `maxBytes`, UTF-8 only. */
export async function readInputStream(stream: NodeJS.ReadableStream, maxBytes = MAX_FILE_BYTES): Promise<InputText> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of stream) {
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      chunks.push(bytes);
      size += bytes.length;
      // Past the limit nothing more is kept: the answer is already known.
      if (size > maxBytes) break;
    }
  } catch (error) {
    return unreadable(error);
  }
  return decoded(chunks, size, maxBytes);
}

function decoded(chunks: Buffer[], size: number, maxBytes: number): InputText {
  if (size > maxBytes) {
    const message = `expected at most ${maxBytes} bytes, found more`;
    return { ok: false, problem: { path: "", code: "file_too_large", message } };
  }
  const bytes = Buffer.concat(chunks, size);
  if (!isUtf8(bytes)) {
    const message = `expected UTF-8 text, found bytes that are not UTF-8 on line ${firstBadLine(bytes)}`;
    return { ok: false, problem: { path: "", code: "not_utf8", message } };
  }
  return { ok: true, text: bytes.toString("utf8") };
}

/** The 1-based line holding the first invalid sequence (a newline byte never falls inside a UTF-8 character). */
function firstBadLine(bytes: Buffer): number {
  let line = 1;
  for (let start = 0; start < bytes.length; line++) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    if (!isUtf8(bytes.subarray(start, end))) return line;
    start = end + 1;
  }
  return line;
}
