// Figure 4: start-up of `adapter-command validate <file>` and `adapter-command --version` against `node -e 0`.
import { BIN, log, median, now, ROOT, runNode } from "./lib.mjs";

const ENVELOPE = new URL("./envelopes/noop.json", import.meta.url).pathname;

async function time(args) {
  const t0 = now();
  const exit = await runNode(args, { cwd: ROOT, stdout: "pipe", env: { NO_COLOR: "1" } });
  const ms = now() - t0;
  if (exit.code !== 0) throw new Error(`node ${args.join(" ")} exited ${exit.code}: ${exit.stderr}`);
  return ms;
}

export async function startup({ quick }) {
  const runs = quick ? 7 : 15;
  const cases = { node: ["-e", "0"], validate: [BIN, "validate", ENVELOPE], version: [BIN, "--version"] };
  const samples = { node: [], validate: [], version: [] };
  for (const args of Object.values(cases)) await time(args); // warm the file cache
  for (let i = 0; i < runs; i++) {
    for (const [name, args] of Object.entries(cases)) samples[name].push(await time(args));
  }
  const baseline = median(samples.node);
  const figures = [];
  for (const name of ["validate", "version"]) {
    const value = median(samples[name]);
    log(`start-up: ${name} ${value.toFixed(1)} ms vs node -e 0 ${baseline.toFixed(1)} ms`);
    figures.push({
      name: `startup_${name}_ms`,
      value,
      unit: "ms",
      baseline,
      ratio: value / baseline,
      goal: "< 2.5 x node -e 0",
      meets: value / baseline < 2.5,
      runs,
    });
  }
  return figures;
}
