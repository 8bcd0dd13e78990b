// Figure 1: a blocking `message/send` of a runner that exits at once through one long-lived bridge,
// against spawning that runner directly with node.
import { Bridge, log, median, now, runNode, runnerOf, sendParams, withTimeout } from "./lib.mjs";

/**
 * Times `via` (one dispatch of the noop runner through a server) against spawning the runner directly, `runs`
 * pairs after `warmup` pairs; resolves with both lists of milliseconds.
 */
export async function versusDirect(via, { runs, warmup = 3 }) {
  const runner = runnerOf("noop");
  const direct = async () => {
    const t0 = now();
    const exit = await runNode(runner.args, { cwd: runner.cwd, stdout: "pipe" });
    if (exit.code !== 0) throw new Error(`direct runner exited ${exit.code}: ${exit.stderr}`);
    return now() - t0;
  };
  const viaMs = [];
  const nodeMs = [];
  for (let i = 0; i < warmup + runs; i++) {
    // Alternate which goes first, so that drift in the machine's load falls on both sides alike.
    let d;
    let b;
    if (i % 2 === 0) {
      d = await direct();
      b = await via();
    } else {
      b = await via();
      d = await direct();
    }
    if (i >= warmup) {
      nodeMs.push(d);
      viaMs.push(b);
    }
  }
  return { viaMs, nodeMs };
}

export async function dispatchOverhead({ quick }) {
  const runs = quick ? 10 : 30;
  const bridge = new Bridge();
  const viaBridge = async () => {
    const t0 = now();
    const task = await withTimeout(
      bridge.guard(bridge.request("message/send", sendParams("noop"))),
      30000,
      "message/send",
    );
    if (task.status.state !== "completed") throw new Error(`task ended ${task.status.state}`);
    return now() - t0;
  };
  let times;
  try {
    await bridge.ready();
    times = await versusDirect(viaBridge, { runs });
  } finally {
    await bridge.close();
  }
  const { viaMs: bridgeMs, nodeMs } = times;
  const b = median(bridgeMs);
  const d = median(nodeMs);
  const paired = median(bridgeMs.map((x, i) => x - nodeMs[i]));
  const overhead = b - d;
  log(`dispatch: bridge median ${b.toFixed(1)} ms, direct median ${d.toFixed(1)} ms (${runs} runs each)`);
  return [
    {
      name: "dispatch_overhead_ms",
      value: overhead,
      unit: "ms",
      baseline: d,
      ratio: b / d,
      goal: "median overhead < 10 ms",
      meets: overhead < 10,
      bridge_median_ms: b,
      paired_median_ms: paired,
      runs,
      guard: bridge.guardKind,
    },
  ];
}
