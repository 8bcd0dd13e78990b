// Bench runner: asks "Start? [y/N] ", and on a line prints the number of lines its message text names (default
// 100 000), "line N of M", every tenth in colour, as fast as backpressure allows, then exits 0. The question lets the
// console's task view be open before the first line (scripts/bench/console.mjs).
import { once } from "node:events";
import { createInterface } from "node:readline";

const total = Number(process.env.AIWG_A2A_MESSAGE) || 100_000;
process.stdout.write("Start? [y/N] ");
await once(createInterface({ input: process.stdin }), "line");
process.stdout.write("\n");
let n = 0;
while (n < total) {
  let chunk = "";
  for (let i = 0; i < 1000 && n < total; i++) {
    n++;
    chunk += n % 10 === 0 ? `\x1b[32mline ${n} of ${total}\x1b[0m\n` : `line ${n} of ${total}\n`;
  }
  if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
}
process.exit(0);
