// Reads an input file for `validate` and `run`: at most MAX_FILE_BYTES, whatever the path is (a pipe, a device,
// a file that grows), and only if it is UTF-8, as JSON must be.
import { isUtf8 } from "node:buffer";
import { open } from "node:fs/promises";
import type { Problem } from "../core/problems.js";

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

export type InputText =
  | { ok: true; text: string }
  /** `unreadable`: the file could not be read at all (as opposed to read and found wrong). */
  | { ok: false; unreadable: boolean; problem: Problem };

export async function readInputFile(file: string, maxBytes = MAX_FILE_BYTES): Promise<InputText> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    const handle = await open(file, "r");
    try {
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
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const message = `expected a readable file, found ${reason}`;
    return { ok: false, unreadable: true, problem: { path: "", code: "file_unreadable", message } };
  }
  if (size > maxBytes) {
    const message = `expected at most ${maxBytes} bytes, found more`;
    return { ok: false, unreadable: false, problem: { path: "", code: "file_too_large", message } };
  }
  const bytes = Buffer.concat(chunks, size);
  if (!isUtf8(bytes)) {
    const message = `expected UTF-8 text, found bytes that are not UTF-8 on line ${firstBadLine(bytes)}`;
    return { ok: false, unreadable: false, problem: { path: "", code: "not_utf8", message } };
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
