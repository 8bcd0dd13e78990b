// HTTP figure 1: a blocking JSON-RPC SendMessage of a runner that exits at once, over one keep-alive connection to
// `serve --http`, against spawning that runner directly with node.
import { versusDirect } from "./dispatch.mjs";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { log, median, now, withTimeout } from "./lib.mjs";

export async function httpDispatchOverhead({ quick }) {
  const runs = quick ? 10 : 30;
  const bridge = new HttpBridge();
  const viaHttp = async () => {
    const t0 = now();
    const { task } = await withTimeout(bridge.call("SendMessage", send10("noop")), 30000, "SendMessage");
    if (task.status.state !== "TASK_STATE_COMPLETED") throw new Error(`task ended ${task.status.state}`);
    return now() - t0;
  };
  let times;
  try {
    await bridge.ready();
    times = await versusDirect(viaHttp, { runs });
  } finally {
    await bridge.close();
  }
  const { viaMs: httpMs, nodeMs } = times;
  const h = median(httpMs);
  const d = median(nodeMs);
  const overhead = h - d;
  log(`http dispatch: HTTP median ${h.toFixed(1)} ms, direct median ${d.toFixed(1)} ms (${runs} runs each)`);
  return [
    {
      name: "http_dispatch_overhead_ms",
      value: overhead,
      unit: "ms",
      baseline: d,
      ratio: h / d,
      goal: "median overhead < 10 ms",
      meets: overhead < 10,
      http_median_ms: h,
      paired_median_ms: median(httpMs.map((x, i) => x - nodeMs[i])),
      runs,
    },
  ];
}
