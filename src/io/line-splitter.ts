// NDJSON lines from a byte stream, each capped: an oversized line is reported once and skipped, never kept whole.
// A line stays bytes: the request gate (src/gate/request-gate.ts) decides whether they are UTF-8.
export type Frame = { kind: "line"; line: Buffer } | { kind: "oversized"; bytes: number };

/** How much of an oversized line is kept, so that its answer can name the request's id. */
const HEAD_BYTES = 256;
const heads = new WeakMap<Frame, string>();

/** The first bytes of an oversized line, as text ("" for any other frame). */
export function headOf(frame: Frame): string {
  return heads.get(frame) ?? "";
}

function oversized(bytes: number, head: string): Frame {
  const frame: Frame = { kind: "oversized", bytes };
  heads.set(frame, head);
  return frame;
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private skipped = 0;
  private head = "";

  constructor(private readonly maxLineBytes = DEFAULT_MAX_LINE_BYTES) {}

  /** Frames completed by this chunk, in order. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) break;
      const frame = this.finishLine();
      if (frame) frames.push(frame);
      start = newline + 1;
    }
    return frames;
  }

  /** What is left when the input ends (a last line without a newline). */
  end(): Frame[] {
    const frame = this.size > 0 || this.skipping ? this.finishLine() : undefined;
    return frame ? [frame] : [];
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipped += piece.length;
      return;
    }
    if (this.size + piece.length > this.maxLineBytes + 1) {
      // +1: a trailing \r is not counted against the limit.
      this.skipping = true;
      this.skipped = this.size + piece.length;
      this.head = Buffer.concat([...this.parts, piece])
        .subarray(0, HEAD_BYTES)
        .toString("utf8");
      this.parts = [];
      this.size = 0;
      return;
    }
    this.parts.push(Buffer.from(piece));
    this.size += piece.length;
  }

  private finishLine(): Frame | undefined {
    if (this.skipping) {
      const bytes = this.skipped;
      this.skipping = false;
      this.skipped = 0;
      return oversized(bytes, this.head);
    }
    let bytes = Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    if (bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
    // The limit is on the bytes received, not on their decoded form (an invalid byte decodes to 3).
    if (bytes.length > this.maxLineBytes)
      return oversized(bytes.length, bytes.subarray(0, HEAD_BYTES).toString("utf8"));
    if (isBlank(bytes)) return undefined;
    return { kind: "line", line: bytes };
  }
}

/** Only JSON's whitespace (a blank line is skipped, not answered). */
function isBlank(bytes: Buffer): boolean {
  for (const byte of bytes) if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d) return false;
  return true;
}
