// A stream's bytes as UTF-8 text, never splitting a character across chunks, each piece of text paired with the
// number of bytes the command wrote for it: byte counts measure what was written, not the decoded text, whose
// U+FFFD replacements are 3 bytes each (CONTRACT section 3.3).
import { isAscii } from "node:buffer";

const EMPTY = Buffer.alloc(0);

/**
 * Complete characters of a stream: their bytes, and their text, decoded when first read. Output that goes straight
 * to a reader is decoded just before it is encoded again, so waiting output holds bytes, outside the JS heap, which
 * the garbage collector never copies (docs/benchmarks.md).
 */
export class DecodedChunk {
  private decoded: string | undefined;

  /**
   * `data`: the bytes of the stream this text is decoded from (a view of the chunk read, not a copy); their length
   * is what the command wrote for it.
   */
  constructor(readonly data: Buffer) {}

  get text(): string {
    if (this.decoded === undefined) this.decoded = decodeUtf8(this.data);
    return this.decoded;
  }
}

/**
 * UTF-8 bytes as text. ASCII, the usual output, is decoded as Latin-1: the same text, made by a plain copy, about
 * twice as fast as Node's UTF-8 decoder (docs/benchmarks.md).
 */
export function decodeUtf8(data: Buffer): string {
  return data.toString(isAscii(data) ? "latin1" : "utf8");
}

/**
 * How many bytes at the end of `bytes` start a character that is not complete yet (0 to 3). Holding back only
 * from a lead byte on is safe: a lead byte always starts a new sequence, so decoding the held bytes together with
 * what follows gives the same text as decoding the whole stream at once.
 */
export function incompleteTail(bytes: Uint8Array): number {
  const end = bytes.length;
  for (let back = 1; back <= Math.min(3, end); back++) {
    const byte = bytes[end - back] as number;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/** The length of the sequence a byte starts: 1 for ASCII and for bytes that never start a valid one. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

export class Utf8Chunks {
  private carry: Buffer = EMPTY;

  /** The text that is complete so far; an incomplete character at the end waits for the next chunk. */
  write(raw: Buffer): DecodedChunk {
    const all = this.carry.length === 0 ? raw : Buffer.concat([this.carry, raw]);
    const cut = all.length - incompleteTail(all);
    // A copy of at most 3 bytes, so the chunk itself is not kept alive.
    this.carry = cut === all.length ? EMPTY : Buffer.from(all.subarray(cut));
    return new DecodedChunk(cut === all.length ? all : all.subarray(0, cut));
  }

  /** The stream ended: what is held back is decoded as it is (an incomplete character becomes U+FFFD). */
  end(): DecodedChunk {
    const rest = this.carry;
    this.carry = EMPTY;
    return new DecodedChunk(rest);
  }
}
