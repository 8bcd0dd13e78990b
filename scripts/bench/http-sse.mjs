// HTTP figure 3: the flood runner's stdout through REST message:stream as SSE, every event parsed and the bytes
// rebuilt and checked, against the JSON-pipe baseline of scripts/bench/throughput.mjs (ready-made event lines piped
// straight into a parsing reader: what carrying output as JSON text costs with no server at all).
import { HttpBridge, readSse, send10 } from "./http-lib.mjs";
import { cpuSecondsOf, log, MiB, median, now, withTimeout } from "./lib.mjs";
import { FloodCheck, jsonPipe, rateOf } from "./throughput.mjs";

/** Streams one flood task through `bridge` over REST; resolves with first-text-to-end timing and the check. */
async function sseFlood(bridge) {
  const check = new FloodCheck();
  let first;
  let end;
  let events = 0;
  let state;
  const response = await bridge.open("POST", "/a2a/rest/message:stream", send10("flood", { timeoutSeconds: 900 }));
  if (response.statusCode !== 200) throw new Error(`message:stream answered ${response.statusCode}`);
  await readSse(response, (data) => {
    events += 1;
    const update = data.artifactUpdate;
    if (update?.artifact.artifactId === "stdout") {
      for (const part of update.artifact.parts) {
        first ??= now();
        check.push(Buffer.from(part.text, "utf8"));
      }
    } else if (data.statusUpdate) {
      state = data.statusUpdate.status.state;
      end = now();
    }
  });
  return { first, end, events, state, check };
}

export async function httpSseThroughput({ quick }) {
  const total = (quick ? 32 : 256) * MiB;
  const reps = 3;
  const rates = { sse: [], json: [] };
  // CPU seconds: the server's, and this process's while it reads the JSON pipe (the baseline's reader).
  const cpu = { sse: [], jsonReader: [] };
  const bridge = new HttpBridge([], { env: { BENCH_BYTES: String(total) } });
  try {
    await bridge.ready();
    for (let i = 0; i < reps; i++) {
      const reader = process.cpuUsage();
      const json = await withTimeout(jsonPipe(total), 120000, "JSON pipe");
      const read = process.cpuUsage(reader);
      cpu.jsonReader.push((read.user + read.system) / 1e6);
      rates.json.push(rateOf("JSON pipe", total, json));
      const before = cpuSecondsOf(bridge.pid);
      const run = await withTimeout(sseFlood(bridge), 180000, "message:stream flood");
      cpu.sse.push(cpuSecondsOf(bridge.pid) - before);
      if (run.state !== "TASK_STATE_COMPLETED") throw new Error(`flood task ended ${run.state}`);
      rates.sse.push(rateOf("SSE", total, run));
      log(
        `http sse ${i + 1}/${reps}: SSE ${rates.sse.at(-1).toFixed(0)} MiB/s (${run.events} events), ` +
          `JSON pipe ${rates.json.at(-1).toFixed(0)} MiB/s`,
      );
    }
  } finally {
    await bridge.close();
  }
  const value = median(rates.sse);
  const json = median(rates.json);
  // The median of the rounds' ratios (each round's two runs close in time), not the ratio of the medians.
  const ratio = median(rates.sse.map((rate, i) => rate / rates.json[i]));
  const msPerMib = (seconds) => (median(seconds) * 1000) / (total / MiB);
  return [
    {
      name: "http_sse_throughput_vs_json_pipe",
      value,
      unit: "MiB/s",
      baseline: json,
      ratio,
      goal: ">= 0.5 x the JSON pipe",
      meets: ratio >= 0.5,
      cpu_ms_per_mib: msPerMib(cpu.sse),
      baseline_reader_cpu_ms_per_mib: msPerMib(cpu.jsonReader),
      bytes: total,
      verified: true,
      rounds: reps,
    },
  ];
}
