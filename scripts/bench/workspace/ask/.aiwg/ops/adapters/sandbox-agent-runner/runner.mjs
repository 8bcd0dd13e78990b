// Bench runner: asks "Continue? [y/N] " N times, N from "prompts=N" in the message text (AIWG_A2A_MESSAGE),
// else BENCH_PROMPTS, else 100. Before each prompt, in the same write, it prints "t <ms>" (the wall-clock time
// of that write); for each answer line it prints "r <ms>" (when it read it). Times are
// performance.timeOrigin + performance.now(), in milliseconds.
import { createInterface } from "node:readline";

const now = () => performance.timeOrigin + performance.now();
const fromMessage = /prompts=(\d+)/.exec(process.env.AIWG_A2A_MESSAGE ?? "")?.[1];
const total = Number(fromMessage ?? process.env.BENCH_PROMPTS ?? 100);
const ask = (prefix) => process.stdout.write(`${prefix}t ${now().toFixed(3)}\nContinue? [y/N] `);
let asked = 1;
const rl = createInterface({ input: process.stdin, terminal: false });
rl.on("line", () => {
  const read = `r ${now().toFixed(3)}\n`;
  if (asked >= total) {
    process.stdout.write(`${read}done\n`);
    rl.close();
    return;
  }
  asked += 1;
  ask(read);
});
rl.on("close", () => process.exit(0));
ask("");
