// Push figures (CONTRACT 9.3): how long an event takes from the task to a webhook on loopback (p95; the same events
// on an SSE stream of the same send are the baseline), and the HTTP dispatch overhead when every task has a dead
// webhook (one that never answers) configured: a receiver that hangs must cost the requests nothing.
import { once } from "node:events";
import { createServer } from "node:http";
import { versusDirect } from "./dispatch.mjs";
import { HttpBridge, send10 } from "./http-lib.mjs";
import { pairedOverhead } from "./judge.mjs";
import { log, median, now, quantile, withTimeout } from "./lib.mjs";

/** A webhook on 127.0.0.1: `onBody` gets each delivery's parsed body; `hang` never answers. */
async function receiver({ hang = false, onBody = () => {} } = {}) {
  const held = [];
  const server = createServer((req, res) => {
    let text = "";
    req.setEncoding("utf8");
    req.on("data", (chunk) => (text += chunk));
    req.on("end", () => {
      const at = now();
      if (hang) held.push(res);
      else res.writeHead(200).end();
      onBody(JSON.parse(text), at);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${server.address().port}/hook`,
    close: () => {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      server.close();
    },
  };
}

/** The latency of every "tick <ms>" line of a 1.0 StreamResponse's output, seen at `at`. */
function tickLatencies(item, at, into) {
  for (const part of item.artifactUpdate?.artifact.parts ?? [])
    for (const match of part.text.matchAll(/tick (\d+(?:\.\d+)?)/g)) into.push(at - Number(match[1]));
}

/** The SSE events of a streaming answer, each parsed, with the time it arrived. */
function readEvents(response, onEvent) {
  return new Promise((resolve, reject) => {
    let buffer = "";
    response.setEncoding("utf8");
    response.on("data", (chunk) => {
      const at = now();
      buffer += chunk;
      let from = 0;
      for (let end = buffer.indexOf("\n\n"); end >= 0; end = buffer.indexOf("\n\n", from)) {
        const data = buffer
          .slice(from, end)
          .split("\n")
          .find((line) => line.startsWith("data: "));
        if (data) onEvent(JSON.parse(data.slice(6)), at);
        from = end + 2;
      }
      buffer = buffer.slice(from);
    });
    response.once("end", resolve);
    response.once("error", reject);
  });
}

async function deliveryLatency({ quick }) {
  const tasks = quick ? 2 : 5;
  const pushed = [];
  const streamed = [];
  const hook = await receiver({ onBody: (body, at) => tickLatencies(body, at, pushed) });
  const bridge = new HttpBridge([], { env: { TICKS: quick ? "30" : "60" } });
  try {
    await bridge.ready();
    for (let i = 0; i < tasks; i++) {
      const request = send10("ticks");
      request.configuration = { taskPushNotificationConfig: { url: hook.url } };
      const response = await bridge.open("POST", "/a2a/rest/message:stream", request);
      await withTimeout(
        readEvents(response, (item, at) => tickLatencies(item, at, streamed)),
        60000,
        "message:stream",
      );
    }
    // The last deliveries may still be on their way when the stream ends.
    const expected = streamed.length;
    const until = Date.now() + 5000;
    while (pushed.length < expected && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    await bridge.close();
    hook.close();
  }
  const p95 = quantile(pushed, 0.95);
  const sse = quantile(streamed, 0.95);
  log(`push delivery: p95 ${p95.toFixed(2)} ms to the webhook, ${sse.toFixed(2)} ms on SSE (${pushed.length} events)`);
  return {
    name: "push_delivery_ms",
    value: p95,
    unit: "ms",
    baseline: sse,
    ratio: p95 / sse,
    goal: "p95 < 5 ms (task event to webhook receipt, loopback)",
    meets: p95 < 5 && pushed.length === streamed.length,
    median_ms: median(pushed),
    sse_median_ms: median(streamed),
    events: pushed.length,
    events_on_sse: streamed.length,
  };
}

async function dispatchWithDeadWebhook({ quick }) {
  const runs = quick ? 10 : 30;
  const dead = await receiver({ hang: true });
  const bridge = new HttpBridge();
  let times;
  try {
    await bridge.ready();
    times = await versusDirect(
      async () => {
        const request = send10("noop");
        request.configuration = { taskPushNotificationConfig: { url: dead.url } };
        const t0 = now();
        const { task } = await withTimeout(bridge.call("SendMessage", request), 30000, "SendMessage");
        if (task.status.state !== "TASK_STATE_COMPLETED") throw new Error(`task ended ${task.status.state}`);
        return now() - t0;
      },
      { runs },
    );
  } finally {
    await bridge.close();
    dead.close();
  }
  const h = median(times.viaMs);
  const d = median(times.nodeMs);
  log(`http dispatch with a dead webhook: HTTP median ${h.toFixed(1)} ms, direct ${d.toFixed(1)} ms (${runs} pairs)`);
  return {
    name: "http_dispatch_overhead_dead_webhook_ms",
    ...pairedOverhead(times.viaMs, times.nodeMs),
    http_median_ms: h,
  };
}

export async function push({ quick }) {
  return [await deliveryLatency({ quick }), await dispatchWithDeadWebhook({ quick })];
}
