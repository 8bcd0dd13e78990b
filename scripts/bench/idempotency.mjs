// idempotency/v1 figures (CONTRACT 9.1): a replayed SendMessage over HTTP JSON-RPC (one keep-alive connection),
// against a GetTask of the same ended task on that connection; and the dispatch overhead of figure 1 with
// IDEMPOTENCY activated on every send (each a new messageId, so each runs).
import { versusDirect } from "./dispatch.mjs";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { pairedOverhead } from "./judge.mjs";
import { log, median, now, withTimeout } from "./lib.mjs";

const IDEMPOTENCY_URI = "https://agentic-sandbox.aiwg.io/extensions/idempotency/v1";

export async function idempotency({ quick }) {
  const runs = quick ? 10 : 30;
  const replays = quick ? 200 : 1000;
  const bridge = new HttpBridge();
  const time = async (work) => {
    const t0 = now();
    await work();
    return now() - t0;
  };
  let times;
  const replayMs = [];
  const getMs = [];
  try {
    await bridge.ready();
    bridge.headers = { ...bridge.headers, "A2A-Extensions": IDEMPOTENCY_URI };
    const viaHttp = async () => {
      const t0 = now();
      const { task } = await withTimeout(bridge.call("SendMessage", send10("noop")), 30000, "SendMessage");
      if (task.status.state !== "TASK_STATE_COMPLETED") throw new Error(`task ended ${task.status.state}`);
      return now() - t0;
    };
    times = await versusDirect(viaHttp, { runs });
    const params = send10("noop");
    const { task } = await bridge.call("SendMessage", params);
    for (let i = 0; i < replays; i++) {
      replayMs.push(await time(() => bridge.call("SendMessage", params)));
      getMs.push(await time(() => bridge.call("GetTask", { id: task.id })));
    }
  } finally {
    await bridge.close();
  }
  const h = median(times.viaMs);
  const d = median(times.nodeMs);
  const replay = median(replayMs);
  const get = median(getMs);
  log(
    `idempotency: replay median ${replay.toFixed(3)} ms, GetTask ${get.toFixed(3)} ms; dispatch ${h.toFixed(1)} ms vs ${d.toFixed(1)} ms`,
  );
  return [
    {
      name: "idempotent_replay_ms",
      value: replay,
      unit: "ms",
      baseline: get,
      ratio: replay / get,
      goal: "median < 1 ms on loopback",
      meets: replay < 1,
      replays,
    },
    {
      name: "http_dispatch_overhead_ms",
      ...pairedOverhead(times.viaMs, times.nodeMs),
      idempotency: true,
      http_median_ms: h,
    },
  ];
}
