// Figure 5: peak RSS of the bridge while the flood runner writes 1 GiB through `message/stream` and the bench
// reads the bridge's stdout slowly (a burst of at most BURST bytes, then a pause of PAUSE_MS); once without and once
// with --state-dir.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Bridge, log, MiB, memoryOf, sleep, withTimeout } from "./lib.mjs";
import { assertRebuilt, streamFlood } from "./throughput.mjs";

const BURST = 512 * 1024;
const PAUSE_MS = 10;
const POLL_MS = 20;

/** Peak RSS of one bridge started with `args` while the slow reader takes `total` bytes of flood through it. */
async function peakOf(args, total) {
  const bridge = new Bridge(args, { env: { BENCH_BYTES: String(total) } });
  let peak = 0;
  let idle;
  let polling = true;
  let run;
  let t0;
  try {
    await bridge.ready();
    await sleep(200);
    idle = memoryOf(bridge.pid).rss;
    const poller = (async () => {
      while (polling) {
        const m = memoryOf(bridge.pid);
        if (!m) break;
        peak = Math.max(peak, m.rss ?? 0, m.hwm ?? 0);
        await sleep(POLL_MS);
      }
    })();

    // The slow reader: pause the bridge's stdout after each burst, resume it after a pause.
    const stdout = bridge.child.stdout;
    let burst = 0;
    const slow = (chunk) => {
      burst += chunk.length;
      if (burst >= BURST) {
        burst = 0;
        stdout.pause();
        setTimeout(() => stdout.resume(), PAUSE_MS);
      }
    };
    stdout.on("data", slow);
    t0 = Date.now();
    run = await withTimeout(bridge.guard(streamFlood(bridge)), 600000, "slow-reader flood");
    stdout.off("data", slow);
    polling = false;
    await poller;
    const last = memoryOf(bridge.pid);
    if (last) peak = Math.max(peak, last.hwm ?? 0);
  } finally {
    polling = false;
    await bridge.close();
  }
  if (run.state !== "completed") throw new Error(`slow-reader flood ended ${run.state}`);
  assertRebuilt("slow-reader flood", total, run);
  const seconds = (Date.now() - t0) / 1000;
  log(
    `memory${args.length ? ` (${args[0]})` : ""}: peak ${(peak / MiB).toFixed(1)} MiB (idle ${(idle / MiB).toFixed(1)} MiB), ${total / MiB} MiB read in ${seconds.toFixed(1)} s`,
  );
  return { peak, idle, seconds };
}

export async function memory({ quick }) {
  const total = (quick ? 128 : 1024) * MiB;
  const figure = (name, { peak, idle, seconds }) => ({
    name,
    value: peak / MiB,
    unit: "MiB",
    baseline: idle / MiB,
    ratio: peak / idle,
    goal: "< 150 MiB",
    meets: peak / MiB < 150,
    bytes: total,
    reader_mib_s: total / MiB / seconds,
    reader: `bursts of ${BURST / 1024} KiB, ${PAUSE_MS} ms pauses`,
  });
  const plain = await peakOf([], total);
  const stateDir = mkdtempSync(join(tmpdir(), "adapter-command-bench-state-"));
  try {
    const stored = await peakOf(["--state-dir", stateDir], total);
    return [figure("memory_peak_rss_mib", plain), figure("memory_peak_rss_state_dir_mib", stored)];
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}
