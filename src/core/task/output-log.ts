// A bounded record of one stream's output: the first part and the most recent, and a count of what fell between.
import { isAscii } from "node:buffer";
import { type DecodedChunk, decodeUtf8 } from "./utf8-chunks.js";

export type StreamName = "stdout" | "stderr";

export interface OutputChunk {
  readonly seq: number;
  readonly stream: StreamName;
  readonly text: string;
  /** The bytes the command wrote for `text` (not its re-encoded length: invalid bytes decode to 3-byte U+FFFD). */
  readonly bytes: number;
  /** The text's UTF-8 bytes without decoding them, when the chunk still holds them and they are ASCII. */
  asciiBytes?(): Buffer | undefined;
}

/**
 * From this size on, a chunk is kept as bytes. A Buffer costs about 200 bytes more than a short string (its objects
 * and its own allocation), which would make a command that writes a few bytes at a time cost 4 times the memory;
 * a short string is also cheap for the garbage collector to copy.
 */
export const BYTES_KEPT_FROM = 4096;

/** The chunk to keep for one piece of a stream. */
export function keptChunk(seq: number, stream: StreamName, piece: DecodedChunk): OutputChunk {
  const { data } = piece;
  return data.length >= BYTES_KEPT_FROM
    ? new ByteChunk(seq, stream, data)
    : { seq, stream, text: piece.text, bytes: data.length };
}

/**
 * A chunk kept as the bytes the command wrote until its text is first read, then as that text. Bytes live outside
 * the JS heap, where the garbage collector never copies them: kept as strings, 8 MiB of a busy task's output was
 * copied over and over as younger objects were collected (docs/benchmarks.md). Once read, the text is kept instead
 * of the bytes, so that every reader shares one string: 300 answers waiting to be written, each holding the task's
 * output, hold it once.
 */
export class ByteChunk implements OutputChunk {
  readonly bytes: number;
  private data: Buffer | undefined;
  private decoded: string | undefined;

  constructor(
    readonly seq: number,
    readonly stream: StreamName,
    data: Buffer,
  ) {
    this.data = data;
    this.bytes = data.length;
  }

  asciiBytes(): Buffer | undefined {
    return this.data !== undefined && isAscii(this.data) ? this.data : undefined;
  }

  get text(): string {
    if (this.decoded === undefined) {
      this.decoded = decodeUtf8(this.data as Buffer);
      this.data = undefined;
    }
    return this.decoded;
  }
}

export class OutputLog {
  private readonly head: OutputChunk[] = [];
  /** Dropped slots are cleared at once (their text is freed) and the array is compacted now and then. */
  private readonly tail: Array<OutputChunk | undefined> = [];
  private headBytes = 0;
  private tailBytes = 0;
  private tailStart = 0;
  droppedBytes = 0;
  totalBytes = 0;

  /** `limit` bytes at most are kept: half for the head, half for the tail (whole chunks, so one chunk may overshoot). */
  constructor(readonly limit: number) {}

  append(chunk: OutputChunk): void {
    this.totalBytes += chunk.bytes;
    const headOpen = this.tail.length === this.tailStart;
    // The first chunk always opens the head, however large: the first part of the output is kept.
    if (headOpen && (this.head.length === 0 || this.headBytes + chunk.bytes <= this.limit / 2)) {
      this.head.push(chunk);
      this.headBytes += chunk.bytes;
      return;
    }
    this.tail.push(chunk);
    this.tailBytes += chunk.bytes;
    while (this.tailBytes > this.limit / 2 && this.tail.length - this.tailStart > 1) {
      const old = this.tail[this.tailStart] as OutputChunk;
      this.tail[this.tailStart++] = undefined;
      this.tailBytes -= old.bytes;
      this.droppedBytes += old.bytes;
    }
    if (this.tailStart > 1024 && this.tailStart * 2 > this.tail.length) {
      this.tail.splice(0, this.tailStart);
      this.tailStart = 0;
    }
  }

  chunks(): OutputChunk[] {
    return [...this.head, ...(this.tail.slice(this.tailStart) as OutputChunk[])];
  }

  /**
   * Kept chunks with a `seq` above `seq`, oldest first: what came in since a reader last looked, found from the
   * newest end, so asking often costs no more than what is new.
   */
  chunksSince(seq: number): OutputChunk[] {
    const found: OutputChunk[] = [];
    for (let i = this.tail.length - 1; i >= this.tailStart; i--) {
      const chunk = this.tail[i] as OutputChunk;
      if (chunk.seq <= seq) return found.reverse();
      found.push(chunk);
    }
    for (let i = this.head.length - 1; i >= 0; i--) {
      const chunk = this.head[i] as OutputChunk;
      if (chunk.seq <= seq) break;
      found.push(chunk);
    }
    return found.reverse();
  }

  /**
   * The chunks dropped so far lie strictly between these two sequence numbers: after the last chunk of the head,
   * before the oldest chunk the tail still keeps (the tail never drops its last chunk). Undefined while the tail
   * is empty, when nothing can have been dropped.
   */
  get droppedBetween(): [after: number, before: number] | undefined {
    const oldestKept = this.tail[this.tailStart];
    return oldestKept === undefined ? undefined : [this.head.at(-1)?.seq ?? 0, oldestKept.seq];
  }

  get keptBytes(): number {
    return this.headBytes + this.tailBytes;
  }

  static restore(limit: number, chunks: OutputChunk[], droppedBytes: number): OutputLog {
    const log = new OutputLog(limit);
    for (const chunk of chunks) log.append(chunk);
    log.droppedBytes += droppedBytes;
    log.totalBytes += droppedBytes;
    return log;
  }
}
