// HTTP figure 1: a blocking JSON-RPC SendMessage of a runner that exits at once, over one keep-alive connection to
// `serve --http`, against spawning that runner directly with node, judged by the median of the paired differences.
import { versusDirect } from "./dispatch.mjs";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { pairedOverhead } from "./judge.mjs";
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
  const figure = pairedOverhead(httpMs, nodeMs);
  const h = median(httpMs);
  log(
    `http dispatch: paired median ${figure.value.toFixed(1)} ms; HTTP median ${h.toFixed(1)} ms, ` +
      `direct median ${figure.baseline.toFixed(1)} ms (${runs} pairs)`,
  );
  return [{ name: "http_dispatch_overhead_ms", ...figure, http_median_ms: h }];
}
