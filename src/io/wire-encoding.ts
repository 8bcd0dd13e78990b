// How text goes on the wire: ASCII as Latin-1, which gives the same bytes as UTF-8.

/**
 * "latin1" for ASCII text, which is the same bytes as UTF-8 and copied as they are; "utf8" otherwise. Node 20
 * encodes UTF-8 character by character, and the check costs less than it saves (docs/benchmarks.md).
 */
export function wireEncoding(text: string): BufferEncoding {
  return Buffer.byteLength(text) === text.length ? "latin1" : "utf8";
}
