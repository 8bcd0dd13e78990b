// Bench runner: writes BENCH_BYTES (default 256 MiB) of 1024-byte lines ("x" * 1023 + "\n") as fast as
// backpressure allows, in 64 KiB writes. The bench knows the exact bytes, so it can check what it rebuilt.
import { once } from "node:events";

const total = Number(process.env.BENCH_BYTES ?? 268435456);
const block = Buffer.from(`${"x".repeat(1023)}\n`.repeat(64), "utf8");
let left = total;
while (left > 0) {
  const chunk = left >= block.length ? block : block.subarray(0, left);
  left -= chunk.length;
  if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
}
