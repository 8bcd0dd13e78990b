// HTTP figure 3: the flood runner's stdout through REST message:stream as SSE, every event parsed and the bytes
// rebuilt and checked, against the JSON-pipe baseline of scripts/bench/throughput.mjs (ready-made event lines piped
// straight into a parsing reader: what carrying output as JSON text costs with no server at all).
import { HttpBridge, readSse, send10 } from "./http-lib.mjs";
import { log, MiB, median, now, withTimeout } from "./lib.mjs";
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
  const bridge = new HttpBridge([], { env: { BENCH_BYTES: String(total) } });
  try {
    await bridge.ready();
    for (let i = 0; i < reps; i++) {
      const json = await withTimeout(jsonPipe(total), 120000, "JSON pipe");
      rates.json.push(rateOf("JSON pipe", total, json));
      const run = await withTimeout(sseFlood(bridge), 180000, "message:stream flood");
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
  return [
    {
      name: "http_sse_throughput_vs_json_pipe",
      value,
      unit: "MiB/s",
      baseline: json,
      ratio: value / json,
      goal: ">= 0.5 x the JSON pipe",
      meets: value / json >= 0.5,
      bytes: total,
      verified: true,
      runs: reps,
    },
  ];
}
