// Figure 2: the flood runner's stdout through `message/stream`, parsed line by line and rebuilt from the
// artifact-update parts, against the same runner piped straight into a reader that counts bytes.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { Bridge, log, MiB, median, now, runnerOf, sendParams, track, withTimeout } from "./lib.mjs";

/** sha256 of what the flood runner writes for `total` bytes (see its runner.mjs). */
export function floodHash(total) {
  const block = Buffer.from(`${"x".repeat(1023)}\n`.repeat(64), "utf8");
  const hash = createHash("sha256");
  let left = total;
  while (left > 0) {
    const n = Math.min(left, block.length);
    hash.update(n === block.length ? block : block.subarray(0, n));
    left -= n;
  }
  return hash.digest("hex");
}

/** Streams one flood task through `bridge`; resolves with first-byte-to-end timing and what was rebuilt. */
export function streamFlood(bridge, { onChunk } = {}) {
  return new Promise((resolve, reject) => {
    let taskId;
    let first;
    let bytes = 0;
    let events = 0;
    const early = [];
    const handle = (event) => {
      events += 1;
      if (event.kind === "artifact-update" && event.artifact.artifactId === "stdout") {
        for (const part of event.artifact.parts) {
          first ??= now();
          bytes += Buffer.byteLength(part.text);
          onChunk?.(part.text);
        }
      } else if (event.kind === "status-update" && event.final) {
        off();
        resolve({ first, end: now(), bytes, events, state: event.status.state, status: event.status });
      }
    };
    const off = bridge.onEvent((event) => {
      if (taskId === undefined) early.push(event);
      else if (event.taskId === taskId) handle(event);
    });
    bridge.request("message/stream", sendParams("flood", { timeoutSeconds: 900 })).then((task) => {
      taskId = task.id;
      for (const event of early.splice(0)) if (event.taskId === taskId) handle(event);
    }, reject);
  });
}

function rawPipe(total) {
  const { cwd, args } = runnerOf("flood");
  return new Promise((resolve, reject) => {
    const child = track(
      spawn(process.execPath, args, {
        cwd,
        env: { ...process.env, BENCH_BYTES: String(total) },
        stdio: ["ignore", "pipe", "inherit"],
      }),
    );
    let first;
    let bytes = 0;
    child.stdout.on("data", (chunk) => {
      first ??= now();
      bytes += chunk.length;
    });
    child.stdout.once("end", () => resolve({ first, end: now(), bytes }));
    child.once("error", reject);
  });
}

export async function throughput({ quick }) {
  const total = (quick ? 32 : 256) * MiB;
  const reps = 3;
  const expected = floodHash(total);
  const bridgeRates = [];
  const rawRates = [];
  const bridge = new Bridge([], { env: { BENCH_BYTES: String(total) } });
  try {
    await bridge.ready();
    for (let i = 0; i < reps; i++) {
      const raw = await withTimeout(rawPipe(total), 120000, "raw pipe");
      if (raw.bytes !== total) throw new Error(`raw pipe delivered ${raw.bytes} bytes, expected ${total}`);
      rawRates.push(total / MiB / ((raw.end - raw.first) / 1000));

      const hash = createHash("sha256");
      const run = await withTimeout(
        bridge.guard(streamFlood(bridge, { onChunk: (text) => hash.update(text) })),
        180000,
        "message/stream flood",
      );
      if (run.state !== "completed") throw new Error(`flood task ended ${run.state}: ${JSON.stringify(run.status)}`);
      const digest = hash.digest("hex");
      if (run.bytes !== total || digest !== expected)
        throw new Error(`rebuilt ${run.bytes} bytes (sha256 ${digest}), expected ${total} (${expected})`);
      bridgeRates.push(total / MiB / ((run.end - run.first) / 1000));
      log(
        `throughput ${i + 1}/${reps}: bridge ${bridgeRates.at(-1).toFixed(0)} MiB/s (${run.events} events), raw ${rawRates.at(-1).toFixed(0)} MiB/s`,
      );
    }
  } finally {
    await bridge.close();
  }
  const value = median(bridgeRates);
  const baseline = median(rawRates);
  return [
    {
      name: "stream_throughput_mib_s",
      value,
      unit: "MiB/s",
      baseline,
      ratio: value / baseline,
      goal: ">= 0.5 x raw pipe",
      meets: value / baseline >= 0.5,
      bytes: total,
      verified: true,
      runs: reps,
    },
  ];
}
