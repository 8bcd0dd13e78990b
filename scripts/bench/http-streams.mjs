// HTTP figure 4: the server's RSS with 200 SSE subscriptions open on idle tasks (waiting in `submitted` behind one
// task that never ends, with --max-concurrent 1), against the same server with the same tasks and no stream.
import { Agent } from "node:http";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { log, MiB, memoryOf, sleep } from "./lib.mjs";

const STREAMS = 200;

/** The highest VmRSS over a few samples. */
async function rssOf(pid) {
  let peak = 0;
  for (let i = 0; i < 5; i++) {
    peak = Math.max(peak, memoryOf(pid)?.rss ?? 0);
    await sleep(100);
  }
  return peak;
}

export async function httpIdleStreams() {
  const bridge = new HttpBridge(["--max-concurrent", "1"]);
  const agent = new Agent({ keepAlive: true, maxSockets: STREAMS + 1 });
  const responses = [];
  let before;
  let after;
  try {
    await bridge.ready();
    await bridge.call("SendMessage", send10("hang", { returnImmediately: true }));
    const ids = [];
    for (let i = 0; i < STREAMS; i++)
      ids.push((await bridge.call("SendMessage", send10("hang", { returnImmediately: true }))).task.id);
    await sleep(500);
    before = await rssOf(bridge.pid);
    for (const id of ids) {
      const response = await bridge.open("GET", `/a2a/rest/tasks/${id}:subscribe`, undefined, agent);
      if (response.statusCode !== 200) throw new Error(`subscribe answered ${response.statusCode}`);
      // Each stream has sent its first event, the task as it is; then nothing until the task moves.
      await new Promise((resolve) => response.once("data", resolve));
      responses.push(response);
    }
    await sleep(1000);
    after = await rssOf(bridge.pid);
  } finally {
    for (const response of responses) response.destroy();
    agent.destroy();
    await bridge.close();
  }
  log(
    `http idle streams: ${STREAMS} open, RSS ${(after / MiB).toFixed(1)} MiB (${(before / MiB).toFixed(1)} MiB without)`,
  );
  return [
    {
      name: "http_idle_streams_rss_mib",
      value: after / MiB,
      unit: "MiB",
      baseline: before / MiB,
      ratio: after / before,
      goal: `< 200 MiB with ${STREAMS} streams open`,
      meets: after / MiB < 200,
      streams: STREAMS,
      kib_per_stream: (after - before) / 1024 / STREAMS,
    },
  ];
}
