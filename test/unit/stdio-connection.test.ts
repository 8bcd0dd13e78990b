// The stdio binding in-process (transport + connection on PassThrough streams, CONTRACT 5.1): bounded batches,
// oversized lines with and without a readable id, and a batch of large answers written entry by entry, each encoded
// only when the output takes it.
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, describe, it } from "node:test";
import { analyzeInput } from "../../src/a2a/input-file.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { InProcessBridge } from "../helpers/in-process-bridge.js";
import type { Wire } from "../helpers/wire.js";

const MiB = 1024 * 1024;

/** An output whose reader takes one chunk when told to: what it holds is exactly what was written and not read. */
class HeldSink extends Writable {
  private readonly held: Array<{ chunk: Buffer; done: () => void }> = [];
  private arrived: (() => void) | undefined;

  constructor() {
    super({ highWaterMark: 64 * 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    this.held.push({ chunk, done });
    this.arrived?.();
  }

  /** Resolves once a chunk is held (at once if one is). */
  async written(): Promise<void> {
    while (this.held.length === 0) await new Promise<void>((resolve) => (this.arrived = resolve));
  }

  /** The next chunk written (waiting for it if need be); taking it lets the writer go on. */
  async take(): Promise<Buffer> {
    await this.written();
    const { chunk, done } = this.held.shift() as { chunk: Buffer; done: () => void };
    done();
    return chunk;
  }
}
const getCard = (id: string | number) => ({ jsonrpc: "2.0", id, method: "agent/getCard" });
const getTask = (id: string | number, task = "no-such-task") => ({
  jsonrpc: "2.0",
  id,
  method: "tasks/get",
  // Without the history, which repeats the 8 MiB request of the big task below.
  params: { id: task, historyLength: 0 },
});

describe("stdio binding: batches", () => {
  const bridge = new InProcessBridge();
  after(() => bridge.close());

  it("a batch of 1000 is answered with one array of 1000, each entry with its own id", async () => {
    const batch = Array.from({ length: 1000 }, (_, i) => (i % 2 === 0 ? getCard(`b-${i}`) : getTask(i)));
    bridge.send(batch);
    const answer = await bridge.next();
    assert.ok(Array.isArray(answer));
    assert.equal(answer.length, 1000);
    assert.deepEqual(
      answer.map((entry: Wire) => entry.id),
      batch.map((request) => request.id),
    );
    for (const [i, entry] of answer.entries()) {
      if (i % 2 === 0) assert.equal(entry.result.protocolVersion, "0.3.0");
      else assert.equal(entry.error.code, -32001);
    }
  });

  it("a batch of 1001 is one -32600 with id null, not an array; the next request is served", async () => {
    bridge.send(Array.from({ length: 1001 }, (_, i) => getCard(i)));
    const answer = await bridge.next();
    assert.ok(!Array.isArray(answer), "one error object");
    assert.equal(answer.id, null);
    assert.equal(answer.error.code, -32600);
    assert.match(answer.error.data.detail, /at most 1000 requests in a batch, found 1001/);
    bridge.send(getCard("after"));
    assert.equal((await bridge.next()).id, "after");
    assert.deepEqual(bridge.pending(), []);
  });
});

describe("stdio binding: one task followed in both families", () => {
  const bridge = new InProcessBridge();
  after(() => bridge.close());

  it("a 0.3 stream and a 1.0 stream of one task each get every event in their own shapes, to their own end", async () => {
    const envelope = envelopeParams("hang", { envelope: { timeout_seconds: 60 } });
    bridge.send({ jsonrpc: "2.0", id: "s03", method: "message/stream", params: envelope });
    const first = await bridge.next();
    const taskId = first.result.id;
    await bridge.dispatcher.until(taskId, (task) => task.state === "working");
    bridge.send({ jsonrpc: "2.0", id: "s10", method: "SubscribeToTask", params: { id: taskId } });
    bridge.send({ jsonrpc: "2.0", id: "again", method: "tasks/resubscribe", params: { id: taskId } });
    const seen: Wire[] = [];
    for (let i = 0; i < 20 && seen.filter((line) => line.id !== undefined).length < 2; i++)
      seen.push(await bridge.next());
    bridge.send({ jsonrpc: "2.0", id: "cancel", method: "CancelTask", params: { id: taskId } });
    // Until the cancel is answered and both families' closing events are out; then whatever else was written.
    const closed03 = (line: Wire) => line.params?.kind === "status-update" && line.params.final === true;
    const closed10 = (line: Wire) => line.params?.statusUpdate?.status.state === "TASK_STATE_CANCELED";
    while (![(line: Wire) => line.id === "cancel", closed03, closed10].every((is) => seen.some(is)))
      seen.push(await bridge.next());
    await bridge.binding.transport.drained();
    seen.push(...bridge.pending());
    const events = seen.filter((line) => line.method === "tasks/event").map((line) => line.params);
    // Status events only: the runner's "hanging" line is in the first task, or an artifact event when it comes later.
    const old = events.filter((event) => event.kind === "status-update");
    const v1 = events.filter((event) => event.kind === undefined && event.statusUpdate !== undefined);
    assert.deepEqual(
      old.map((event) => [event.status?.state, event.final]),
      [
        ["working", false],
        ["canceled", true],
      ],
      "0.3: each event once, though two 0.3 streams follow the task",
    );
    assert.deepEqual(
      v1.map((event) => event.statusUpdate?.status.state),
      ["TASK_STATE_CANCELED"],
      "1.0: its own closing event",
    );
    assert.deepEqual(seen.find((line) => line.id === "s10")?.result.task.status.state, "TASK_STATE_WORKING");
  });
});

describe("stdio binding: lines over --max-line-bytes", () => {
  const bridge = new InProcessBridge({ maxLineBytes: 512 });
  after(() => bridge.close());
  const pad = "x".repeat(2000);

  /** The answer to one oversized line: -32600, discarded, with the id the line's start shows (or null). */
  async function answerTo(line: string): Promise<Wire> {
    assert.ok(Buffer.byteLength(line) > 512);
    bridge.send(line);
    const answer = await bridge.next();
    assert.equal(answer.error?.code, -32600, JSON.stringify(answer));
    assert.match(answer.error.data.detail, /over the limit of 512; discarded/);
    return answer.id;
  }

  it("with the id among the first members, the answer carries it (a string or a number)", async () => {
    const line = (head: string) => `${head},"method":"agent/getCard","params":{"pad":"${pad}"}}`;
    assert.equal(await answerTo(line('{"jsonrpc":"2.0","id":"big-1"')), "big-1");
    assert.equal(await answerTo(line('{ "id" : 42')), 42);
    assert.equal(await answerTo(`{"method":"tasks/get","jsonrpc":"2.0","id":"m-1","params":{"pad":"${pad}"}}`), "m-1");
    assert.equal(await answerTo(line('{"jsonrpc":"2.0","id":"a \\" quote"')), 'a " quote');
  });

  it("with the id after the params, past the line's start, or no JSON at all, the id is null", async () => {
    assert.equal(await answerTo(`{"jsonrpc":"2.0","params":{"pad":"${pad}"},"id":"late"}`), null);
    assert.equal(await answerTo(`{"jsonrpc":"2.0","method":"${"m".repeat(400)}","id":"far"}${pad}`), null);
    assert.equal(await answerTo(`garbage ${pad}`), null);
    assert.equal(await answerTo(`{"jsonrpc":"2.0","id":{"an":"object"},"pad":"${pad}"}`), null);
  });

  it("nothing of a discarded line is served, and the bridge goes on", async () => {
    bridge.send(getCard("still"));
    const answer = await bridge.next();
    assert.equal(answer.id, "still");
    assert.deepEqual(bridge.pending(), []);
  });
});

describe("stdio binding: 300 tasks/get of an 8 MiB task in one batch", () => {
  const sink = new HeldSink();
  const bridge = new InProcessBridge({ dispatcher: { outputLimitBytes: 32 * MiB }, output: sink });
  after(() => bridge.close());
  let taskId = "";
  let entryBytes = 0;

  /** Bytes the binding has written but nobody has read yet. */
  const unread = () => sink.writableLength;

  it("an echo of 8 MiB keeps all of it", async () => {
    const text = "x".repeat(8 * MiB - 1);
    const task = bridge.dispatcher.submit({
      analysis: analyzeInput({ role: "user", parts: [{ kind: "text", text }] }),
      hitlActivated: false,
    });
    await bridge.dispatcher.settled(task.id);
    taskId = task.id;
    assert.equal(bridge.dispatcher.get(taskId).output?.stdout.totalBytes, 8 * MiB);
  });

  it("with the output unread, at most one entry is encoded ahead, and memory stays flat", async () => {
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    bridge.input.write(`${JSON.stringify(Array.from({ length: 300 }, (_, i) => getTask(`get-${i}`, taskId)))}\n`);
    // The first entry is written in one go, and the output is full from then on: nothing more is made until it is read.
    await sink.written();
    entryBytes = unread();
    assert.ok(entryBytes > 8 * MiB, `the first entry is out (${entryBytes} bytes)`);
    assert.ok(entryBytes < 8 * MiB + 4096, `one entry, and no more, waits unread: ${entryBytes} bytes`);
    // Built whole, the answer would be 300 × 8 MiB = 2.4 GiB.
    const grown = process.memoryUsage().heapUsed - heapBefore;
    assert.ok(grown < 200 * MiB, `the heap grew by ${Math.round(grown / MiB)} MiB`);
  });

  it("reading it, each entry is encoded only as the output takes it: produced stays within an entry of read", async () => {
    let read = 0;
    let worst = 0;
    const ids: string[] = [];
    let tail = "";
    for (let entries = 0; entries < 4; ) {
      const chunk = await sink.take();
      read += chunk.length;
      await new Promise((resolve) => setImmediate(resolve));
      worst = Math.max(worst, unread());
      // Ids are found across chunk boundaries by keeping the end of the previous chunk.
      const text = tail + chunk.toString("latin1");
      for (const match of text.matchAll(/"id":"(get-\d+)"/g))
        if (!ids.includes(match[1] as string)) ids.push(match[1] as string);
      tail = text.slice(-64);
      entries = ids.length;
    }
    assert.deepEqual(ids.slice(0, 4), ["get-0", "get-1", "get-2", "get-3"], "entries in request order");
    assert.ok(read > 3 * 8 * MiB);
    assert.ok(worst <= entryBytes + 4096, `never more than one entry waited unread: ${worst} bytes`);
  });

  it("a reader that goes away: what still waits is dropped, not encoded for nobody", async () => {
    let encoded = 0;
    const stringify = JSON.stringify;
    JSON.stringify = ((...args: Parameters<typeof stringify>) => {
      encoded += 1;
      return stringify(...args);
    }) as typeof JSON.stringify;
    try {
      sink.destroy();
      await bridge.binding.transport.drained();
    } finally {
      JSON.stringify = stringify;
    }
    assert.ok(encoded <= 1, `${encoded} entries were encoded after the output was gone`);
  });
});
