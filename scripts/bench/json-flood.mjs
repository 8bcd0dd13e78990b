// Baseline producer for the throughput figure: writes BENCH_BYTES of the flood runner's output as the
// `tasks/event` lines a bridge would send (one artifact-update per 64 KiB, JSON text parts), then a final status
// line, straight to stdout. A reader of this pipe does all the JSON work a bridge's client does, with no bridge.
import { once } from "node:events";

const total = Number(process.env.BENCH_BYTES ?? 268435456);
const block = `${"x".repeat(1023)}\n`.repeat(64);
const ids = { taskId: "json-pipe", contextId: "json-pipe" };
const line = (params) => Buffer.from(`${JSON.stringify({ jsonrpc: "2.0", method: "tasks/event", params })}\n`);
const chunkLine = (text, seq) =>
  line({
    kind: "artifact-update",
    ...ids,
    artifact: { artifactId: "stdout", name: "stdout", parts: [{ kind: "text", text, metadata: { seq } }] },
    append: seq > 0,
    lastChunk: false,
  });

const full = chunkLine(block, 1); // the same line each time: only its seq would differ, and nobody reads that
let left = total;
for (let seq = 0; left > 0; seq++) {
  const out = left >= block.length ? full : chunkLine(block.slice(0, left), seq);
  left -= Math.min(left, block.length);
  if (!process.stdout.write(out)) await once(process.stdout, "drain");
}
process.stdout.write(line({ kind: "status-update", ...ids, status: { state: "completed" }, final: true }));
