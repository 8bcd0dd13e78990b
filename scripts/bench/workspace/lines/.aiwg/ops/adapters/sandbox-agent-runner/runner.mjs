// Bench runner: prints the number of lines its message text names (default 100 000), "line N of M" each with a
// colour every tenth line, as fast as backpressure allows, then exits 0.
import { once } from "node:events";

const total = Number(process.env.AIWG_A2A_MESSAGE) || 100_000;
let n = 0;
while (n < total) {
  let chunk = "";
  for (let i = 0; i < 1000 && n < total; i++) {
    n++;
    chunk += n % 10 === 0 ? `\x1b[32mline ${n} of ${total}\x1b[0m\n` : `line ${n} of ${total}\n`;
  }
  if (!process.stdout.write(chunk)) await once(process.stdout, "drain");
}
