// The documented bounds, at their defaults, through a real bridge: 1 MiB request lines, a bounded queue of waiting
// tasks, and a task record that keeps a bounded part of a large output and counts what it dropped.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { RpcBridge, startBridge } from "../helpers/bridge.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { MiB, rssOf } from "../helpers/processes.js";
import { artifactText, type Wire } from "../helpers/wire.js";

/** A getCard request padded to exactly `bytes` bytes of JSON. */
function paddedRequest(id: string, bytes: number): string {
  const empty = JSON.stringify({ jsonrpc: "2.0", id, method: "agent/getCard", params: { pad: "" } });
  const line = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "agent/getCard",
    params: { pad: "x".repeat(bytes - empty.length) },
  });
  assert.equal(Buffer.byteLength(line), bytes);
  return line;
}

describe("limits: request lines at the default 1 MiB", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge();
  });
  after(() => bridge.kill());

  it("a line of exactly 1 MiB is served; 1 MiB + 1 byte is -32600, discarded; then requests still work", async () => {
    bridge.sendLine(paddedRequest("at-limit", MiB));
    const served = await bridge.responseTo("at-limit", 30_000);
    assert.equal(served.result?.capabilities?.streaming, true, JSON.stringify(served).slice(0, 300));

    const before = bridge.lineCount;
    bridge.sendLine(paddedRequest("over-limit", MiB + 1), "\r\n");
    const refused = await bridge.nextRawResponse(30_000);
    assert.equal(refused.error?.code, -32600);
    // CONTRACT 5.1: the id is read from the line's start when it is there.
    assert.equal(refused.id, "over-limit");
    // Over the limit by far, written in pieces: one answer, and nothing of it is parsed as a request.
    const huge = paddedRequest("huge", 5 * MiB);
    for (let at = 0; at < huge.length; at += 64 * 1024) bridge.sendBytes(huge.slice(at, at + 64 * 1024));
    bridge.sendBytes("\n");
    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    const second = bridge.pendingRawResponses();
    assert.equal(bridge.lineCount - before, 3, JSON.stringify(second.map((a: Wire) => a.error ?? a.id)));
    assert.equal(second.length, 1);
    assert.equal(second[0].error?.code, -32600);
    assert.equal(second[0].id, "huge");
    assert.ok(![refused, ...second].some((a: Wire) => a.result !== undefined), "no oversized line is served");
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});

describe("limits: the queue of waiting tasks (1000)", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge({ args: ["--max-concurrent", "1"] });
  });
  after(() => bridge.kill());

  it("one running and 1000 waiting in submitted: the next is refused with an error saying so; shutdown is clean", async () => {
    const sends = Array.from({ length: 1002 }, () =>
      bridge.callRaw("message/send", envelopeParams("hang", { configuration: { blocking: false } }), 60_000),
    );
    const responses = await Promise.all(sends);
    const accepted = responses.filter((r) => r.result !== undefined);
    const refused = responses.filter((r) => r.error !== undefined);
    assert.equal(accepted.length, 1001, JSON.stringify(refused.slice(0, 3)));
    assert.equal(refused.length, 1);
    assert.match(String(refused[0]?.error?.message), /too many tasks waiting/);
    assert.equal(refused[0]?.error?.code, -32000);
    assert.match(String(refused[0]?.error?.message), /^server busy: /);
    assert.equal(refused[0]?.error?.data?.reason, "queue_full");
    // tasks/list pages (CONTRACT 7.4): totalSize counts every match of the filter.
    assert.equal((await bridge.call("tasks/list", { status: "working" })).totalSize, 1);
    assert.equal((await bridge.call("tasks/list", { status: "submitted" })).totalSize, 1000);
    const started = Date.now();
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
    assert.ok(Date.now() - started < 5000, "exit within 5 s");
  });
});

describe("limits: a task's output record (8 MiB)", () => {
  let bridge: RpcBridge;
  before(() => {
    // `big` writes FIXTURE_BYTES of multi-byte UTF-8 (the bridge's environment reaches the runner).
    bridge = new RpcBridge({ env: { FIXTURE_BYTES: String(24 * MiB) } });
  });
  after(() => bridge.kill());

  it("24 MiB of stdout: the record keeps at most 8 MiB (+ one chunk), dropped_bytes is exactly the rest", async () => {
    const task = await bridge.call("message/send", envelopeParams("big"), 120_000);
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    const stdout = task.artifacts.find((a: Wire) => a.artifactId === "stdout");
    const kept = Buffer.byteLength(artifactText(task, "stdout"));
    assert.equal(stdout.metadata.total_bytes, 24 * MiB);
    assert.equal(stdout.metadata.dropped_bytes, 24 * MiB - kept);
    assert.ok(kept <= 8 * MiB + 256 * 1024, `kept ${kept} bytes`);
    assert.ok(kept > 0);
    // Sequence numbers jump where the middle was dropped, and only there.
    const seqs: number[] = stdout.parts.map((p: Wire) => p.metadata.seq);
    const gaps = seqs.filter((seq, i) => i > 0 && seq !== (seqs[i - 1] as number) + 1);
    assert.ok(gaps.length <= 2, `gaps in seq: ${gaps.length}`);
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});

describe("limits: a burst of requests with large answers", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = startBridge({ env: { FIXTURE_BYTES: String(8 * MiB) } });
  });
  after(() => bridge.close());

  it("100 tasks/get of an 8 MiB task in one write, stdout unread: memory stays bounded; all are answered", async () => {
    const task = await bridge.call("message/send", envelopeParams("big"), 120_000);
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    bridge.pause();
    const lines = Array.from({ length: 100 }, (_, i) =>
      JSON.stringify({ jsonrpc: "2.0", id: `get-${i}`, method: "tasks/get", params: { id: task.id } }),
    );
    bridge.sendBytes(`${lines.join("\n")}\n`);
    let peak = 0;
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      peak = Math.max(peak, rssOf(bridge.pid) ?? 0);
    }
    // Built all at once, 100 answers of 8 MiB take well over 1 GiB.
    assert.ok(peak < 250 * MiB, `bridge RSS ${Math.round(peak / MiB)} MiB with stdout unread`);
    bridge.resume();
    const ids = new Set<string>();
    for (let i = 0; i < 100; i++) {
      const response = await bridge.nextRawResponse(60_000);
      assert.equal(response.result?.id, task.id);
      ids.add(response.id);
    }
    assert.equal(ids.size, 100);
  });
});

describe("limits: one batch of 300 large answers", () => {
  /** Ids of the batch's entries that carry the task, and of those refused as too large, found in stdout as it streams by. */
  const answered = new Set<string>();
  const refused = new Set<string>();
  let taskId = "";
  let tail = "";
  let bridge: RpcBridge;
  const maxOutputBytes = 32 * MiB;
  // docs/reference.md, "Answer size": an answer, and a batch's answer together, at most 8 × --max-output-bytes.
  const answerBound = 8 * maxOutputBytes;
  before(() => {
    // The record keeps up to half its limit in whole chunks from the start: 32 MiB keeps all 8 MiB of stdout.
    bridge = startBridge({
      args: ["--max-output-bytes", String(maxOutputBytes)],
      env: { FIXTURE_BYTES: String(8 * MiB) },
      tap: (chunk) => {
        if (!taskId) return;
        const text = tail + chunk.toString("latin1");
        const entry = new RegExp(`"id":"(get-\\d+)","result":\\{"kind":"task","id":"${taskId}"`, "g");
        for (const match of text.matchAll(entry)) answered.add(match[1] as string);
        for (const match of text.matchAll(/"id":"(get-\d+)","error":\{"code":-32000,/g))
          refused.add(match[1] as string);
        // The tail keeps a match cut between two chunks; one matched again is counted once, in its first place.
        tail = text.slice(-400);
      },
    });
  });
  after(() => bridge.close());

  it("300 tasks/get of an 8 MiB task in one batch: answered in order up to the bound, the rest -32000, RSS under 512 MiB", async (t) => {
    const task = await bridge.call("message/send", envelopeParams("big"), 120_000);
    assert.equal(task.status.state, "completed", JSON.stringify(task.status));
    assert.deepEqual(task.artifacts[0].metadata, { total_bytes: 8 * MiB, dropped_bytes: 0 });
    taskId = task.id;
    const batch = Array.from({ length: 300 }, (_, i) => ({
      jsonrpc: "2.0",
      id: `get-${i}`,
      method: "tasks/get",
      params: { id: task.id, historyLength: 0 },
    }));
    let peak = 0;
    const sample = setInterval(() => {
      peak = Math.max(peak, rssOf(bridge.pid) ?? 0);
    }, 50);
    try {
      // First with stdout unread for a while, then read as fast as it comes.
      bridge.pause();
      bridge.sendLine(JSON.stringify(batch));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      bridge.resume();
      const card = await bridge.call("agent/getCard", undefined, 300_000);
      assert.equal(card.capabilities.streaming, true, "the bridge answers after the batch");
    } finally {
      clearInterval(sample);
    }
    // Every entry is answered once, in the batch's order: the task while the bound lasts, then -32000.
    const ids = Array.from({ length: 300 }, (_, i) => `get-${i}`);
    assert.deepEqual([...answered, ...refused], ids);
    assert.ok(answered.size >= 20 && answered.size < 32, `entries answered in full: ${answered.size}`);
    // The batch's answer is one line far longer than the reader keeps: that, and nothing else, is reported.
    assert.equal(bridge.protocolProblems.length, 1, JSON.stringify(bridge.protocolProblems));
    assert.match(bridge.protocolProblems[0] as string, /a stdout line of \d+ bytes/);
    const bytes = Number(/of (\d+) bytes/.exec(bridge.protocolProblems[0] as string)?.[1]);
    assert.ok(bytes <= answerBound + 300 * 1024, `the answer keeps its bound (${bytes} bytes)`);
    t.diagnostic(`bridge RSS peaked at ${Math.round(peak / MiB)} MiB for ${Math.round(bytes / MiB)} MiB of answer`);
    // Each entry written is measured, let go and made again when written, in pieces that are never joined: no answer's
    // JSON is held between the two, so the peak stays near the answer's own 256 MiB (about 300 MiB here; holding
    // them, or a joined copy of each, took it past 1 GiB).
    assert.ok(peak > 0 && peak < 512 * MiB, `bridge RSS peaked at ${Math.round(peak / MiB)} MiB`);
  });
});
