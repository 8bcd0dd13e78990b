// How text goes on the wire: ASCII as Latin-1, which gives the same bytes as UTF-8.

/** The one line last made from ASCII (src/a2a/wire/encode.ts), until it is written. */
let knownAscii: string | undefined;

/**
 * `text`, which its maker knows to be ASCII (it was made from ASCII bytes), remembered until it is written, so that
 * its write needs no scan of it: that scan of each 64 KiB line was 0.2 ms/MiB of the bridge's CPU
 * (docs/benchmarks.md, "The 0.3 flood"). One line at a time: a newer one takes its place.
 */
export function asciiText(text: string): string {
  knownAscii = text;
  return text;
}

/**
 * "latin1" for ASCII text, which is the same bytes as UTF-8 and copied as they are; "utf8" otherwise. Node 20
 * encodes UTF-8 character by character, and the check costs less than it saves (docs/benchmarks.md). A text equal to
 * the line last known to be ASCII is ASCII without a look (equal strings: the same one, as a rule).
 */
export function wireEncoding(text: string): BufferEncoding {
  if (text === knownAscii) {
    knownAscii = undefined;
    return "latin1";
  }
  return Buffer.byteLength(text) === text.length ? "latin1" : "utf8";
}
