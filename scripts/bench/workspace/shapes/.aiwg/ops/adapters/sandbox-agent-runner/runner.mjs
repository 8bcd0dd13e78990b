// Bench runner for `stream_throughput_shapes` (scripts/bench/shapes.mjs): the message says what to print,
// "SHAPE CHUNK BYTES" (for example "jsonl 2048 16777216"). It writes BYTES of the shape's block repeated, in writes
// of CHUNK bytes (cut anywhere, a character may be split), as fast as backpressure allows.
import { once } from "node:events";
import { blockOf } from "./shapes.mjs";

const [shape, chunkText, bytesText] = (process.env.AIWG_A2A_MESSAGE ?? "").trim().split(/\s+/);
const chunk = Number(chunkText);
const total = Number(bytesText);
const block = blockOf(shape);
// Enough of the block repeated that any chunk is one slice of it.
const source = Buffer.concat(Array.from({ length: Math.ceil((block.length + chunk) / block.length) + 1 }, () => block));
for (let at = 0; at < total; at += chunk) {
  const from = at % block.length;
  const piece = source.subarray(from, from + Math.min(chunk, total - at));
  if (!process.stdout.write(piece)) await once(process.stdout, "drain");
}
