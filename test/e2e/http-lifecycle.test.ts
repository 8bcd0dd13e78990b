// `serve --http` over time (CONTRACT 8.1, 8.4): SIGTERM with open streams and a blocking send, a client that goes
// away, and a client that stops reading (it never holds the task back: its stream ends with SLOW_CONSUMER).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { after, describe, it, type TestContext } from "node:test";
import { assertV1 } from "../helpers/a2a-schema.js";
import { AT_ONCE } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { type HttpServer, type SseReader, send10, startHttp } from "../helpers/http-server.js";
import {
  goneWithin,
  groupGoneWithin,
  groupRunning,
  killGroup,
  processesWithEnv,
  trueWithin,
  written,
} from "../helpers/processes.js";
import { WebhookReceiver } from "../helpers/webhook-receiver.js";
import type { Wire } from "../helpers/wire.js";

/** Process groups of runners the tests started, killed at the end should a failing test leave one. */
const groups: number[] = [];
after(() => {
  for (const pgid of groups) killGroup(pgid);
});

/** Starts a server that is closed when the test `t` ends. */
async function serverOf(t: TestContext, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<HttpServer> {
  const server = await startHttp(args, env);
  t.after(() => server.close());
  return server;
}

const hang = (extra: Record<string, unknown> = {}) =>
  send10("hang", { envelope: { working_dir: "pid-hang", timeout_seconds: 60 }, ...extra });

/** Reads events until the runner's `pid <n>` line; returns its process group. */
async function pidOf(stream: SseReader, text: (data: Wire) => string | undefined): Promise<number> {
  for (let event = await stream.next(); event; event = await stream.next()) {
    const match = /pid (\d+)/.exec(text(event.data) ?? "");
    if (match) {
      groups.push(Number(match[1]));
      return Number(match[1]);
    }
  }
  throw new Error("the stream ended before the runner printed its pid");
}

/**
 * The state a task ends in, told by a second stream that reads (the stalled one must not be what tells): its last
 * status event, or, should that stream itself be cut, GetTask and a new subscription while the task still runs.
 */
async function endOf(server: HttpServer, taskId: string): Promise<string> {
  for (;;) {
    const reader = await server.stream(
      `/a2a/rest/tasks/${taskId}:subscribe`,
      { method: "POST" },
      (event) => event.data?.artifactUpdate === undefined,
    );
    const events = reader.status === 200 ? await reader.rest(60_000) : [];
    reader.destroy();
    const told = events.at(-1)?.data?.statusUpdate?.status.state as string | undefined;
    const state = told ?? ((await server.fetch(`/a2a/rest/tasks/${taskId}`)).body?.status?.state as string);
    if (/COMPLETED|FAILED|CANCELED/.test(state)) return state;
  }
}

const restText = (data: Wire) => data.artifactUpdate?.artifact.parts[0].text;

// Each test has its own server and runners: they run at once.
describe("serve --http: shutdown", { concurrency: AT_ONCE }, () => {
  it("SIGTERM with open streams on both bindings and a blocking send: final events, exit 0 within 5 s, no child left", async (t) => {
    const instance = randomUUID();
    const server = await serverOf(t, ["--instance", instance]);
    const rest = await server.stream("/a2a/rest/message:stream", { method: "POST", body: hang() });
    const rpc10 = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: hang() },
    });
    const rpc03 = await server.stream("/a2a/jsonrpc", {
      method: "POST",
      body: {
        jsonrpc: "2.0",
        id: 2,
        method: "message/stream",
        params: envelopeParams("pid-hang", { envelope: { timeout_seconds: 60 } }),
      },
    });
    const pgids = [
      await pidOf(rest, restText),
      await pidOf(rpc10, (data) => restText(data.result)),
      await pidOf(rpc03, (data) => data.result.artifact?.parts[0].text),
    ];
    const blocking = server.fetch("/a2a/rest/message:send", { method: "POST", body: hang() });
    const runners = () => processesWithEnv("AIWG_A2A_INSTANCE_ID", instance).length;
    assert.ok(await trueWithin(() => runners() >= 4, 10_000), `four runners are running (${runners()})`);

    const exit = await server.close();
    assert.equal(exit.code, 0, server.stderr);
    assert.ok(exit.ms < 5000, `exited after ${exit.ms} ms`);

    const last = async (stream: SseReader) => (await stream.rest()).at(-1)?.data;
    const restLast = await last(rest);
    assertV1("Stream Response", restLast);
    assert.equal(restLast.statusUpdate.status.state, "TASK_STATE_CANCELED");
    assert.equal((await last(rpc10)).result.statusUpdate.status.state, "TASK_STATE_CANCELED");
    const final03 = (await last(rpc03)).result;
    assert.equal(final03.final, true);
    assert.equal(final03.status.state, "canceled");
    const answered = await blocking;
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.body.task.status.state, "TASK_STATE_CANCELED");
    for (const pgid of pgids) assert.ok(await groupGoneWithin(pgid, 1000), `group ${pgid} is gone`);
    assert.deepEqual(processesWithEnv("AIWG_A2A_INSTANCE_ID", instance), [], "no runner of this server is left");
  });

  it("SIGINT with a client that does not read its stream: still exit 0 within 5 s, no child left", async (t) => {
    const instance = randomUUID();
    const server = await serverOf(t, ["--instance", instance], { FIXTURE_BYTES: String(512 * 1024 * 1024) });
    const stream = await server.stream(
      "/a2a/rest/message:stream",
      { method: "POST", body: send10("flood", { envelope: { working_dir: "flood", timeout_seconds: 60 } }) },
      () => false,
    );
    stream.pause();
    // The runner has written more than the pipes and the socket can hold between it and the paused client.
    const runnerWrote = () => {
      const [runner] = processesWithEnv("AIWG_A2A_INSTANCE_ID", instance);
      return runner !== undefined && (written(runner) ?? 0) > 32 * 1024 * 1024;
    };
    assert.ok(await trueWithin(runnerWrote, 20_000), "the runner wrote 32 MiB");
    const t0 = Date.now();
    server.child.kill("SIGINT");
    const exit = await server.exited;
    assert.equal(exit.code, 0, server.stderr);
    assert.ok(Date.now() - t0 < 5000, `exited after ${Date.now() - t0} ms`);
    stream.destroy();
    const left = () => processesWithEnv("AIWG_A2A_INSTANCE_ID", instance);
    assert.ok(await goneWithin(() => left().length > 0, 2000), `no runner of this server is left: ${left()}`);
  });
});

describe("serve --http: clients that leave or stop reading", () => {
  it("a client that goes away stops following; the task goes on and can be followed again", async (t) => {
    const server = await serverOf(t);
    const stream = await server.stream("/a2a/rest/message:stream", { method: "POST", body: hang() });
    const pgid = await pidOf(stream, restText);
    const taskId = (await server.fetch("/a2a/rest/tasks?pageSize=1")).body.tasks[0].id;
    stream.destroy();
    // Requests made after the client left are answered after the server heard of it: by then a cancel for the
    // leaving would have ended the task, and SIGTERM the runner (pid-hang stops on it).
    const again = await server.stream(`/a2a/rest/tasks/${taskId}:subscribe`);
    const first = (await again.next())?.data.task;
    assert.equal(first?.id, taskId);
    assert.equal(first?.status.state, "TASK_STATE_WORKING");
    const task = (await server.fetch(`/a2a/rest/tasks/${taskId}`)).body;
    assert.equal(task.status.state, "TASK_STATE_WORKING");
    assert.ok(groupRunning(pgid), "the runner still runs");
    await server.fetch(`/a2a/rest/tasks/${taskId}:cancel`, { method: "POST" });
    assert.equal((await again.rest()).at(-1)?.data.statusUpdate.status.state, "TASK_STATE_CANCELED");
    assert.ok(await groupGoneWithin(pgid, 5000));
  });

  it("a client that stops reading never holds the task back: memory stays bounded, the task completes, and the stalled stream ends with SLOW_CONSUMER", async (t) => {
    const FLOOD = 200 * 1024 * 1024;
    const LIMIT = 4 * 1024 * 1024;
    const server = await serverOf(t, ["--max-output-bytes", String(LIMIT)], { FIXTURE_BYTES: String(FLOOD) });
    let stalledBytes = 0;
    const stalled = await server.stream(
      "/a2a/rest/message:stream",
      { method: "POST", body: send10("flood", { envelope: { working_dir: "flood", timeout_seconds: 120 } }) },
      (event) => {
        const text = event.data?.artifactUpdate?.artifact.parts[0].text;
        if (text === undefined) return true;
        stalledBytes += Buffer.byteLength(text);
        return false;
      },
    );
    const taskId = (await stalled.next())?.data?.task.id as string;
    assert.ok(taskId, "the stream starts with the task");
    stalled.pause();
    assert.equal(
      await endOf(server, taskId),
      "TASK_STATE_COMPLETED",
      "the task completed while its client read nothing",
    );
    const peak = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${server.pid}/status`, "utf8"));
    const peakMiB = Number(peak?.[1]) / 1024;
    assert.ok(peakMiB < 200, `the server's peak RSS stays under 200 MiB (it was ${peakMiB.toFixed(1)} MiB)`);

    stalled.resume();
    const events = await stalled.rest(60_000);
    const last = events.at(-1);
    assert.equal(last?.event, "error", `the stalled stream ends with an error event: ${last?.raw}`);
    assert.equal(last?.data?.error.status, "RESOURCE_EXHAUSTED");
    assert.equal(last?.data?.error.details[0].reason, "SLOW_CONSUMER");
    assert.equal(last?.data?.error.details[0].metadata.taskId, taskId);
    assert.ok(stalledBytes < FLOOD, `the stalled stream got ${stalledBytes} of ${FLOOD} bytes`);
  });

  it("JSON-RPC: a stalled 1.0 stream ends with an error response of its request's id (-32000, SLOW_CONSUMER)", async (t) => {
    const FLOOD = 64 * 1024 * 1024;
    const server = await serverOf(t, ["--max-output-bytes", String(1024 * 1024)], { FIXTURE_BYTES: String(FLOOD) });
    const stalled = await server.stream(
      "/a2a/jsonrpc",
      {
        method: "POST",
        body: {
          jsonrpc: "2.0",
          id: "slow-1",
          method: "SendStreamingMessage",
          params: send10("flood", { envelope: { working_dir: "flood", timeout_seconds: 120 } }),
        },
      },
      (event) => event.data?.result?.artifactUpdate === undefined,
    );
    const taskId = (await stalled.next())?.data?.result.task.id as string;
    stalled.pause();
    assert.equal(await endOf(server, taskId), "TASK_STATE_COMPLETED");
    stalled.resume();
    const last = (await stalled.rest(60_000)).at(-1);
    assert.equal(last?.event, "error", `the stalled stream ends with an error event: ${last?.raw}`);
    assert.equal(last?.data?.id, "slow-1");
    assert.equal(last?.data?.error.code, -32000);
    assert.equal(last?.data?.error.data[0].reason, "SLOW_CONSUMER");
  });

  it("beside a stalled stream, another stream of the task and its webhook get every byte and the end", async (t) => {
    const OUTPUT = 48 * 1024 * 1024;
    // The webhook cannot hold the task back (CONTRACT 9.3): it must keep up within its queue, the output limit. 16 MiB
    // is a second of the runner's output, room for a receiver in a test process busy reading the other stream; the
    // stalled stream still overflows, as it may keep 16 MiB behind of 48.
    const server = await serverOf(t, ["--max-output-bytes", String(16 * 1024 * 1024)], {
      FIXTURE_BYTES: String(OUTPUT),
    });

    const receiver = await WebhookReceiver.start();
    try {
      const stalled = await server.stream(
        "/a2a/rest/message:stream",
        {
          method: "POST",
          body: send10("paced", {
            envelope: { working_dir: "paced", timeout_seconds: 120 },
            configuration: { taskPushNotificationConfig: { url: receiver.url() } },
          }),
        },
        (event) => event.data?.artifactUpdate === undefined,
      );
      const taskId = (await stalled.next())?.data?.task.id as string;
      stalled.pause();
      let readBytes = 0;
      const reading = await server.stream(`/a2a/rest/tasks/${taskId}:subscribe`, { method: "POST" }, (event) => {
        const artifact = event.data?.artifactUpdate?.artifact;
        if (artifact) readBytes += Buffer.byteLength(artifact.parts[0].text);
        return artifact === undefined;
      });
      const task = (await reading.next())?.data?.task;
      const before = task.artifacts?.find((a: Wire) => a.artifactId === "stdout")?.metadata.total_bytes ?? 0;
      const rest = await reading.rest(60_000);
      assert.equal(
        rest.at(-1)?.data?.statusUpdate?.status.state,
        "TASK_STATE_COMPLETED",
        "the reading stream ends with the task",
      );
      assert.equal(before + readBytes, OUTPUT, "the reading stream got every byte after its Task");
      const end = await receiver
        .waitUntil((r) => r.body?.statusUpdate?.status.state === "TASK_STATE_COMPLETED", 60_000)
        .catch((error: Error) => assert.fail(`${error.message}; the server said: ${server.stderr}`));
      assert.equal(end.body.statusUpdate.taskId, taskId);
      const hooked = receiver.received.reduce(
        (sum, r) => sum + Buffer.byteLength(r.body?.artifactUpdate?.artifact.parts[0].text ?? ""),
        0,
      );
      assert.equal(hooked, OUTPUT, "the webhook got every byte");
      stalled.resume();
      const last = (await stalled.rest(60_000)).at(-1);
      assert.equal(last?.event, "error", `the stalled stream ends with an error event: ${last?.raw}`);
      assert.equal(last?.data?.error.details[0].reason, "SLOW_CONSUMER");
    } finally {
      await receiver.close();
    }
  });

  it("many clients at once: 50 streams and 50 sends in parallel are all served", async (t) => {
    const server = await serverOf(t, ["--max-concurrent", "8"]);
    const streams = Array.from({ length: 50 }, (_, i) =>
      server.stream("/a2a/rest/message:stream", { method: "POST", body: send10(`s${i}`) }),
    );
    const sends = Array.from({ length: 50 }, (_, i) =>
      server.fetch("/a2a/rest/message:send", { method: "POST", body: send10(`m${i}`) }),
    );
    for (const answer of await Promise.all(sends)) assert.equal(answer.body.task.status.state, "TASK_STATE_COMPLETED");
    for (const stream of await Promise.all(streams))
      assert.equal((await stream.rest()).at(-1)?.data.statusUpdate.status.state, "TASK_STATE_COMPLETED");
  });
});
