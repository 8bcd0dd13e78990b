// The four shapes of output the `stream_throughput_shapes` bench streams (scripts/bench/shapes.mjs), shared by its
// runner and its reader so that every byte can be checked: lines of 80 bytes, an ANSI-coloured build log, JSON lines
// and UTF-8 text. Each is a block of whole lines; the output is the block repeated, cut into chunks anywhere.

const lines = (count, make) => Array.from({ length: count }, (_, i) => make(i)).join("");
const pad = (text, width) => `${text}${".".repeat(Math.max(0, width - Buffer.byteLength(text)))}`;
const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"];

export const SHAPES = {
  /** Plain ASCII lines of exactly 80 bytes. */
  lines: () =>
    lines(1024, (i) => `${pad(`${String(i).padStart(6, "0")} ${WORDS[i % 10]} ${WORDS[(i * 7) % 10]}`, 79)}\n`),
  /** A build log with SGR colour codes (ESC is escaped as \u001b in JSON: 6 bytes for 1). */
  ansi: () =>
    lines(1024, (i) => {
      const ok = i % 9 !== 0;
      const mark = ok ? "\u001b[32m✓\u001b[39m" : "\u001b[33m!\u001b[39m";
      const file = `src/${WORDS[i % 10]}/${WORDS[(i * 3) % 10]}-${i}.ts`;
      return `${mark} \u001b[1mcompile\u001b[22m ${file} \u001b[2m(${(i * 37) % 900} ms)\u001b[22m\n`;
    }),
  /** Structured logs: JSON lines, whose quotes are escaped in JSON. */
  jsonl: () =>
    lines(
      1024,
      (i) =>
        `${JSON.stringify({ level: i % 13 === 0 ? "warn" : "info", ts: 1733250000000 + i * 17, msg: `request "${WORDS[i % 10]}" served`, path: `/api/v1/${WORDS[(i * 3) % 10]}/${i}`, status: 200, ms: (i * 7) % 250 })}\n`,
    ),
  /** Text in several scripts: 2-, 3- and 4-byte UTF-8 characters among ASCII. */
  utf8: () =>
    lines(
      1024,
      (i) => `${i} Größe naïve café — Ελληνικά русский 東京の天気 한국어 العربية ${["😀", "✓", "€", "…"][i % 4]}\n`,
    ),
};

/** The block of a shape, as bytes. */
export const blockOf = (shape) => Buffer.from(SHAPES[shape]());
