// Figure 1: a blocking `message/send` of a runner that exits at once through one long-lived bridge,
// against spawning that runner directly with node, judged by the median of the paired differences.
import { pairedOverhead } from "./judge.mjs";
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
  const figure = pairedOverhead(bridgeMs, nodeMs);
  const b = median(bridgeMs);
  log(
    `dispatch: paired median ${figure.value.toFixed(1)} ms; bridge median ${b.toFixed(1)} ms, ` +
      `direct median ${figure.baseline.toFixed(1)} ms (${runs} pairs)`,
  );
  return [{ name: "dispatch_overhead_ms", ...figure, bridge_median_ms: b, guard: bridge.guardKind }];
}
