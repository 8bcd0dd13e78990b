// `serve --stdio` end to end over real pipes: every method's success and error paths, streaming, framing and a
// clean protocol stream (CONTRACT section 5).
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { echoParams, envelopeParams } from "../helpers/envelopes.js";
import { payload } from "../helpers/fixture-output.js";
import { notJsonRpc } from "../helpers/jsonrpc-lines.js";
import { allTasks } from "../helpers/list-pages.js";
import { groupGoneWithin, killGroup, readBytes, trueWithin } from "../helpers/processes.js";
import { artifactText, ended, eventText, type TaskEvent, type Wire } from "../helpers/wire.js";

const SEED = "serve-e2e-7";
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

const interleaveOut = Array.from({ length: 200 }, (_, i) => `out ${i + 1}\n`).join("");
const interleaveErr = Array.from({ length: 200 }, (_, i) => `err ${i + 1}\n`).join("");

const adapterMeta = (task: Wire) => task.metadata?.[ADAPTER_URI];
const taskIds = async (bridge: RpcBridge): Promise<string[]> =>
  (await allTasks(bridge)).map((task: Wire) => task.id).sort();

/** Checks the A2A 0.3 shape of a task on the wire (CONTRACT section 5.4). */
function assertTaskShape(task: Wire): void {
  assert.equal(task.kind, "task");
  assert.match(task.id, UUID);
  assert.equal(typeof task.contextId, "string");
  assert.equal(typeof task.status?.state, "string");
  assert.match(task.status.timestamp, RFC3339);
  assert.equal(typeof task.metadata, "object");
}

/**
 * Checks a stream's events: result first, seq strictly increasing, append flags, one final status at the end.
 * `resumedFrom` is the task the stream started from (resubscribe): a stream that already had output appends.
 */
function assertStream(bridge: RpcBridge, responseId: string | number, events: TaskEvent[], resumedFrom?: Wire): void {
  const resultLine = bridge.responseLine.get(responseId) as number;
  assert.ok(resultLine > 0, "the stream's result arrived");
  for (const event of events) {
    assert.ok((bridge.lineOf(event) as number) > resultLine, "every event comes after the result");
  }
  const last = events.at(-1) as TaskEvent;
  assert.equal(last.kind, "status-update");
  assert.equal(last.final, true);
  for (const event of events.slice(0, -1)) {
    assert.ok(!(event.kind === "status-update" && event.final), "only the last event is final");
  }
  const seqs = events
    .filter((event) => event.kind === "artifact-update")
    .map((event) => event.artifact.parts[0].metadata.seq as number);
  for (let i = 1; i < seqs.length; i++) assert.ok((seqs[i] as number) > (seqs[i - 1] as number), "seq increases");
  for (const stream of ["stdout", "stderr"]) {
    const chunks = events.filter((event) => event.kind === "artifact-update" && event.artifact.artifactId === stream);
    chunks.forEach((event, index) => {
      assert.equal(event.artifact.name, stream);
      assert.equal(event.artifact.parts.length, 1);
      assert.equal(event.artifact.parts[0].kind, "text");
      const before = resumedFrom ? artifactText(resumedFrom, stream as "stdout" | "stderr").length > 0 : false;
      assert.equal(event.append, before || index > 0, `append flag of ${stream} chunk ${index}`);
    });
  }
}

describe("serve --stdio: methods", () => {
  let bridge: RpcBridge;
  const leftovers: number[] = [];

  before(async () => {
    bridge = startBridge({ env: { FIXTURE_SEED: SEED } });
    await bridge.ready();
  });
  after(async () => {
    await bridge.close();
    for (const pgid of leftovers) killGroup(pgid);
  });

  it("agent/getCard: streaming, both extensions optional, the adapter's params", async () => {
    const card = await bridge.call("agent/getCard");
    assert.equal(card.protocolVersion, "0.3.0");
    assert.equal(card.capabilities.streaming, true);
    const extensions = card.capabilities.extensions as Wire[];
    const adapter = extensions.find((e) => e.uri === ADAPTER_URI);
    const hitl = extensions.find((e) => e.uri === HITL_URI);
    assert.ok(adapter, "the adapter-command/v1 extension is listed");
    assert.ok(hitl, "the hitl-prompt/v1 extension is listed");
    assert.equal(adapter.required, false);
    assert.equal(hitl.required, false);
    assert.deepEqual(adapter.params.adapters, ["sandbox-agent-runner"]);
    assert.deepEqual(adapter.params.modes, ["plan", "assess"]);
    assert.deepEqual(adapter.params.input_modes, ["text-line"]);
  });

  it("message/send without an envelope echoes the text (one part, then two parts)", async () => {
    const one = await bridge.call("message/send", echoParams("hello rpc"));
    assertTaskShape(one);
    assert.equal(one.status.state, "completed");
    assert.equal(artifactText(one, "stdout"), "hello rpc\n");
    const two = await bridge.call("message/send", echoParams(["first", "second"]));
    assert.equal(two.status.state, "completed");
    assert.equal(artifactText(two, "stdout"), "first\nsecond\n");
  });

  it("message/send of a data part is -32005 at its pointer, of no part -32602, and creates no task", async () => {
    const before = await taskIds(bridge);
    const error = await bridge.callError("message/send", {
      message: { kind: "message", messageId: randomUUID(), role: "user", parts: [{ kind: "data", data: { a: 1 } }] },
    });
    assert.equal(error.code, -32005);
    assert.equal(error.data?.errors?.[0]?.path, "/message/parts/0", JSON.stringify(error));
    const none = await bridge.callError("message/send", {
      message: { kind: "message", messageId: randomUUID(), role: "user", parts: [] },
    });
    assert.equal(none.code, -32602);
    assert.deepEqual(await taskIds(bridge), before);
  });

  it("message/send (blocking) of plan on `ok`: completed, stdout, adapter metadata", async () => {
    const contextId = randomUUID();
    const task = await bridge.call("message/send", envelopeParams("ok", { contextId }));
    assertTaskShape(task);
    assert.equal(task.status.state, "completed");
    assert.equal(task.contextId, contextId, "the message's contextId is kept");
    assert.equal(artifactText(task, "stdout"), "ok\n");
    const stdout = (task.artifacts as Wire[]).find((a) => a.artifactId === "stdout");
    assert.equal(stdout.name, "stdout");
    for (const part of stdout.parts) {
      assert.equal(part.kind, "text");
      assert.equal(typeof part.metadata.seq, "number");
    }
    const meta = adapterMeta(task);
    assert.equal(meta.adapter, "sandbox-agent-runner");
    assert.equal(meta.mode, "plan");
    assert.equal(meta.exit_code, 0);
    assert.equal(meta.timeout_seconds, 30);
    assert.match(meta.started_at, RFC3339);
    assert.match(meta.ended_at, RFC3339);
    assert.match(meta.deadline, RFC3339);
    assert.ok(Date.parse(meta.started_at) <= Date.parse(meta.ended_at));
    assert.equal(Date.parse(meta.deadline) - Date.parse(meta.started_at), 30_000, "deadline = start + timeout");
    assert.ok(String(meta.working_dir).endsWith("/ok"), meta.working_dir);
    assert.equal(typeof task.status.message?.parts?.[0]?.text, "string", "an ended task says what happened");
  });

  it("message/send without a contextId gets a new UUID", async () => {
    const task = await bridge.call("message/send", envelopeParams("ok"));
    assert.match(task.contextId, UUID);
  });

  it("message/send with blocking false returns at once; tasks/get then reads it completed", async () => {
    const task = await bridge.call("message/send", envelopeParams("ok", { configuration: { blocking: false } }));
    assert.ok(["submitted", "working"].includes(task.status.state), task.status.state);
    const done = await bridge.waitTask(task.id, ended);
    assert.equal(done.status.state, "completed");
    assert.equal(artifactText(done, "stdout"), "ok\n");
    assert.equal(adapterMeta(done).exit_code, 0);
  });

  it("message/send of `exit3`: failed, fail_kind application, exit code 3, stderr kept", async () => {
    const task = await bridge.call("message/send", envelopeParams("exit3"));
    assert.equal(task.status.state, "failed");
    assert.equal(task.status.fail_kind, "application");
    assert.equal(adapterMeta(task).exit_code, 3);
    assert.equal(adapterMeta(task).fail_kind, "application");
    assert.equal(artifactText(task, "stderr"), "failing\n");
    assert.match(task.status.message.parts[0].text, /3/);
  });

  it("message/send with a working directory that does not exist: failed, fail_kind infrastructure", async () => {
    const task = await bridge.call("message/send", envelopeParams("no-such-fixture-dir"));
    assert.equal(task.status.state, "failed");
    assert.equal(task.status.fail_kind, "infrastructure");
    assert.equal(adapterMeta(task).fail_kind, "infrastructure");
    assert.equal(typeof task.status.message?.parts?.[0]?.text, "string");
  });

  it("an envelope with several problems is -32602 `adapter-command/v1 rejected:` with every problem; no task", async () => {
    const before = await taskIds(bridge);
    const error = await bridge.callError(
      "message/send",
      envelopeParams("ok", { envelope: { mode: "bogus", timeout_seconds: "5", surprise: true } }),
    );
    assert.equal(error.code, -32602);
    assert.ok(error.message.startsWith("adapter-command/v1 rejected:"), error.message);
    const errors = error.data?.errors as Wire[];
    assert.ok(Array.isArray(errors), JSON.stringify(error.data));
    assert.ok(errors.length >= 3, `every problem is listed: ${JSON.stringify(errors)}`);
    for (const problem of errors) {
      assert.equal(typeof problem.path, "string");
      assert.equal(typeof problem.code, "string");
      assert.equal(typeof problem.message, "string");
    }
    const paths = errors.map((problem) => problem.path);
    const base = `/message/metadata/${ADAPTER_URI.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    for (const field of ["mode", "timeout_seconds", "surprise"]) {
      assert.ok(paths.includes(`${base}/${field}`), `a problem at ${base}/${field}: ${JSON.stringify(paths)}`);
    }
    assert.deepEqual(await taskIds(bridge), before, "tasks/list shows no new task");
  });

  it("a working_dir outside the workspace, or a request that escapes by symlink, is rejected before anything runs", async () => {
    const before = await taskIds(bridge);
    const outside = await bridge.callError("message/send", envelopeParams("../../.."));
    assert.equal(outside.code, -32602);
    assert.ok(outside.message.startsWith("adapter-command/v1 rejected:"), outside.message);
    assert.ok(Array.isArray(outside.data?.errors) && outside.data.errors.length > 0);
    const link = await bridge.callError(
      "message/send",
      envelopeParams("escape", {
        envelope: {
          command: [
            "node",
            ".aiwg/ops/adapters/sandbox-agent-runner/runner.mjs",
            "--request",
            ".aiwg/ops/runs/link.json",
          ],
        },
      }),
    );
    assert.equal(link.code, -32602);
    assert.ok(link.message.startsWith("adapter-command/v1 rejected:"), link.message);
    assert.deepEqual(await taskIds(bridge), before);
  });

  it("tasks/get, tasks/cancel and tasks/resubscribe of an unknown task are -32001", async () => {
    for (const method of ["tasks/get", "tasks/cancel", "tasks/resubscribe"]) {
      const error = await bridge.callError(method, { id: randomUUID() });
      assert.equal(error.code, -32001, `${method}: ${JSON.stringify(error)}`);
    }
  });

  it("tasks/get returns the task with artifacts; historyLength 0 leaves out the history", async () => {
    const sent = await bridge.call("message/send", echoParams("kept"));
    const got = await bridge.call("tasks/get", { id: sent.id });
    assert.equal(got.id, sent.id);
    assert.equal(artifactText(got, "stdout"), "kept\n");
    assert.ok(Array.isArray(got.history) && got.history.length >= 1, "history by default");
    const short = await bridge.call("tasks/get", { id: sent.id, historyLength: 0 });
    assert.ok(short.history === undefined || short.history.length === 0, JSON.stringify(short.history));
  });

  it("tasks/list returns {tasks, nextPageToken, pageSize, totalSize} without artifacts", async () => {
    const sent = await bridge.call("message/send", echoParams("listed"));
    const list = await bridge.call("tasks/list", {});
    assert.deepEqual(Object.keys(list), ["tasks", "nextPageToken", "pageSize", "totalSize"]);
    const tasks = list.tasks as Wire[];
    assert.ok(tasks.length >= 5);
    assert.ok(tasks.some((task) => task.id === sent.id));
    for (const task of tasks) {
      assertTaskShape(task);
      assert.equal(task.artifacts, undefined, `no artifacts in tasks/list (task ${task.id})`);
    }
    // Without params at all, too.
    assert.ok(Array.isArray((await bridge.call("tasks/list")).tasks));
  });

  it("tasks/cancel of a running task: canceled, its process group is gone; a second cancel is -32002", async () => {
    const sent = await bridge.callRaw("message/stream", envelopeParams("pid-hang"));
    const task = sent.result;
    const printed = await bridge.nextEvent(task.id, (e) => e.kind === "artifact-update");
    const pgid = Number(/pid (\d+)/.exec(printed.artifact.parts[0].text)?.[1]);
    assert.ok(pgid > 0);
    leftovers.push(pgid);
    const canceled = await bridge.call("tasks/cancel", { id: task.id });
    assert.equal(canceled.id, task.id);
    assert.equal(canceled.status.state, "canceled");
    const final = await bridge.nextEvent(task.id, (e) => e.kind === "status-update" && e.final === true);
    assert.equal(final.status.state, "canceled");
    assert.ok(await groupGoneWithin(pgid, 3000), "the runner's process group is gone");
    const again = await bridge.callError("tasks/cancel", { id: task.id });
    assert.equal(again.code, -32002);
    assert.equal((await bridge.call("tasks/get", { id: task.id })).status.state, "canceled");
  });

  it("tasks/cancel of `hang` (blocking false) returns it canceled", async () => {
    const task = await bridge.call("message/send", envelopeParams("hang", { configuration: { blocking: false } }));
    await bridge.waitTask(task.id, (t) => t.status.state === "working");
    const canceled = await bridge.call("tasks/cancel", { id: task.id });
    assert.equal(canceled.status.state, "canceled");
    assert.equal((await bridge.callError("tasks/cancel", { id: task.id })).code, -32002);
  });

  it("tasks/cancel of a completed task is -32002", async () => {
    const task = await bridge.call("message/send", echoParams("done"));
    const error = await bridge.callError("tasks/cancel", { id: task.id });
    assert.equal(error.code, -32002);
  });

  it("a command past its deadline: failed, fail_kind application, reason timeout, its group gone", async () => {
    const sent = await bridge.call("message/stream", envelopeParams("pid-hang", { envelope: { timeout_seconds: 2 } }));
    const events = await bridge.eventsUntilFinal(sent.id, 20_000);
    const final = events.at(-1) as TaskEvent;
    assert.equal(final.status.state, "failed");
    assert.equal(final.status.fail_kind, "application");
    const task = await bridge.call("tasks/get", { id: sent.id });
    assert.equal(adapterMeta(task).reason, "timeout");
    assert.equal(adapterMeta(task).fail_kind, "application");
    assert.ok(
      Date.parse(adapterMeta(task).ended_at) >= Date.parse(adapterMeta(task).deadline),
      "ended at the deadline",
    );
    // On a loaded machine the runner may not have printed its pid before the deadline.
    const pid = /pid (\d+)/.exec(eventText(events, "stdout"))?.[1];
    if (pid !== undefined) {
      leftovers.push(Number(pid));
      assert.ok(await groupGoneWithin(Number(pid), 3000), "the timed-out runner's group is gone");
    }
  });

  it("tasks/resubscribe on a running task: the Task as it is now, then its events to the end", async () => {
    const task = await bridge.call(
      "message/send",
      envelopeParams("interleave", { configuration: { blocking: false } }),
    );
    // Wait until it has printed something, so the snapshot and the events each hold part of the output.
    const running = await bridge.waitTask(task.id, (t) => artifactText(t, "stdout").length > 0 || ended(t));
    assert.equal(running.status.state, "working", "still running when resubscribed");
    const response = await bridge.callRaw("tasks/resubscribe", { id: task.id });
    const snapshot = response.result;
    assert.ok(snapshot, JSON.stringify(response.error));
    assert.equal(snapshot.id, task.id);
    assert.equal(snapshot.status.state, "working");
    const events = await bridge.eventsUntilFinal(task.id);
    assertStream(bridge, response.id as string, events, snapshot);
    assert.equal((events.at(-1) as TaskEvent).status.state, "completed");
    // Nothing lost and nothing doubled between the snapshot and the events.
    assert.equal(artifactText(snapshot, "stdout") + eventText(events, "stdout"), interleaveOut);
    assert.equal(artifactText(snapshot, "stderr") + eventText(events, "stderr"), interleaveErr);
  });

  it("tasks/resubscribe on an ended task returns it (and no events follow)", async () => {
    const task = await bridge.call("message/send", echoParams("over"));
    const again = await bridge.call("tasks/resubscribe", { id: task.id });
    assert.equal(again.status.state, "completed");
    await bridge.call("agent/getCard"); // a round trip: any event would have come before its answer
    assert.deepEqual(bridge.queuedEvents(task.id), []);
  });

  it("a message for an existing task that is not an answer is -32004; for a task that does not exist -32001", async () => {
    const task = await bridge.call("message/send", echoParams("first"));
    const params = echoParams("follow-up");
    Object.assign(params.message as Record<string, unknown>, { taskId: task.id, contextId: task.contextId });
    const error = await bridge.callError("message/send", params);
    assert.equal(error.code, -32004);
    assert.equal(error.data?.task_id, task.id);
    Object.assign(params.message as Record<string, unknown>, { taskId: "no-such-task" });
    assert.equal((await bridge.callError("message/send", params)).code, -32001);
  });

  it("an unknown method is -32601, named, with the method meant when one is near", async () => {
    const error = await bridge.callError("tasks/frobnicate", {});
    assert.equal(error.code, -32601);
    assert.equal(error.message, 'Method not found: "tasks/frobnicate"');
    const typo = await bridge.callError("message/sned", {});
    assert.equal(typo.code, -32601);
    assert.equal(typo.message, 'Method not found: "message/sned"; did you mean "message/send"?');
  });

  it("bad params are -32602 with data (tasks/get with id 5, without an id, message/send without an object)", async () => {
    const five = await bridge.callError("tasks/get", { id: 5 });
    assert.equal(five.code, -32602);
    assert.ok(five.data !== undefined && five.data !== null, "data is present");
    assert.ok(Array.isArray(five.data.errors) && five.data.errors.length > 0, JSON.stringify(five.data));
    const none = await bridge.callError("tasks/get", {});
    assert.equal(none.code, -32602);
    assert.ok(none.data !== undefined);
    // One convention: JSON Pointers into params, and words that say what the field is.
    assert.equal(none.message, 'Invalid params: missing required field "id": expected a string, found nothing at /id');
    assert.deepEqual(
      none.data.errors.map((problem: Wire) => problem.path),
      ["/id"],
    );
    assert.deepEqual(
      five.data.errors.map((problem: Wire) => problem.path),
      ["/id"],
    );
    const negative = await bridge.callError("tasks/get", { id: randomUUID(), historyLength: -1 });
    assert.equal(negative.code, -32602);
    const cancel = await bridge.callError("tasks/cancel", { id: 5 });
    assert.equal(cancel.code, -32602);
    const send = await bridge.callError("message/send", [1, 2]);
    assert.equal(send.code, -32602);
    assert.ok(send.data !== undefined);
    assert.deepEqual(
      send.data.errors.map((problem: Wire) => problem.path),
      [""],
    );
  });

  it("message/stream on `payload`: the result first, then events whose text is the output exactly", async () => {
    const response = await bridge.callRaw("message/stream", envelopeParams("payload"));
    const task = response.result;
    assertTaskShape(task);
    assert.ok(["submitted", "working"].includes(task.status.state), task.status.state);
    const events = await bridge.eventsUntilFinal(task.id);
    assertStream(bridge, response.id as string, events);
    assert.equal((events.at(-1) as TaskEvent).status.state, "completed");
    const out = eventText(events, "stdout");
    const err = eventText(events, "stderr");
    assert.equal(Buffer.byteLength(out), 65536);
    assert.equal(Buffer.byteLength(err), 16384);
    assert.equal(out, payload("line", 65536, SEED));
    assert.equal(err, payload("err", 16384, SEED));
    // And the task record agrees.
    const got = await bridge.call("tasks/get", { id: task.id });
    assert.equal(artifactText(got, "stdout"), out);
    assert.equal(artifactText(got, "stderr"), err);
  });

  it("message/stream on `interleave`: both streams exact, seq shared and increasing", async () => {
    const response = await bridge.callRaw("message/stream", envelopeParams("interleave"));
    const task = response.result;
    const events = await bridge.eventsUntilFinal(task.id);
    assertStream(bridge, response.id as string, events);
    assert.equal(eventText(events, "stdout"), interleaveOut);
    assert.equal(eventText(events, "stderr"), interleaveErr);
    const statuses = events.filter((e) => e.kind === "status-update").map((e) => e.status.state);
    assert.ok(statuses.includes("working"), JSON.stringify(statuses));
    assert.equal(statuses.at(-1), "completed");
    for (const event of events) {
      assert.equal(event.taskId, task.id);
      assert.equal(event.contextId, task.contextId);
    }
  });

  it("following a task again (20 × tasks/resubscribe) does not repeat its events: every line arrives once", async () => {
    const response = await bridge.callRaw("message/stream", envelopeParams("interleave"));
    const task = response.result;
    for (let i = 0; i < 20; i++) await bridge.call("tasks/resubscribe", { id: task.id });
    const events = await bridge.eventsUntilFinal(task.id);
    assert.equal(eventText(events, "stdout"), interleaveOut);
    assert.equal(eventText(events, "stderr"), interleaveErr);
    const finals = events.filter((e) => e.kind === "status-update" && e.final);
    assert.equal(finals.length, 1);
    // The bridge writes one stdout: what it sent before this answer has arrived before it.
    await bridge.call("tasks/get", { id: task.id });
    assert.deepEqual(bridge.queuedEvents(task.id), [], "no second copy arrives later");
  });

  it("message/stream of an echo: result, then the echoed text, then the final status", async () => {
    const response = await bridge.callRaw("message/stream", echoParams("streamed echo"));
    const events = await bridge.eventsUntilFinal(response.result.id);
    assertStream(bridge, response.id as string, events);
    assert.equal(eventText(events, "stdout"), "streamed echo\n");
  });

  it("a child that prints to stdout never corrupts the protocol: every bridge stdout line is JSON-RPC 2.0", async () => {
    await bridge.call("message/send", envelopeParams("ok"));
    await bridge.call("message/send", envelopeParams("payload"));
    await bridge.call("agent/getCard");
    assert.ok(bridge.lineCount > 20, `lines seen: ${bridge.lineCount}`);
    assert.deepEqual(bridge.protocolProblems, []);
    assert.ok(!/^(ok|seed-)/m.test(bridge.stderr), "the runners' output is not passed through on stderr either");
  });
});

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A line the bridge must answer with -32700: not blank, not JSON, no newline inside. */
function garbageLine(random: () => number, index: number): Buffer {
  const texts = ["hello world", "{not json", "[1,2", '"unterminated', "nul\u0000l", "{'single':1}", "}{", "True"];
  for (;;) {
    let candidate: Buffer;
    if (index % 2 === 0) {
      const length = 1 + Math.floor(random() * 300);
      candidate = Buffer.alloc(length);
      for (let i = 0; i < length; i++) {
        let byte = Math.floor(random() * 256);
        if (byte === 0x0a) byte = 0x0b;
        candidate[i] = byte;
      }
    } else {
      candidate = Buffer.from(`${texts[index % texts.length]} #${index}`);
    }
    const text = candidate.toString("utf8").replace(/\r$/, "");
    if (text.trim() === "") continue;
    try {
      JSON.parse(text);
    } catch {
      return candidate;
    }
  }
}

describe("serve --stdio: framing (--max-line-bytes 4096)", () => {
  let bridge: RpcBridge;
  const LIMIT = 4096;

  before(async () => {
    bridge = startBridge({ args: ["--max-line-bytes", String(LIMIT)] });
    await bridge.ready();
  });
  after(async () => {
    await bridge.close();
  });

  it("1000 lines of garbage each get -32700 with id null; then a request still succeeds", async () => {
    const random = prng(20240611);
    const lines = Array.from({ length: 1000 }, (_, i) => garbageLine(random, i));
    bridge.sendBytes(Buffer.concat(lines.flatMap((line) => [line, Buffer.from("\n")])));
    for (let i = 0; i < 1000; i++) {
      const response = await bridge.nextRawResponse();
      assert.equal(response.id, null, `response ${i}`);
      assert.equal(response.error?.code, -32700, `response ${i}: ${JSON.stringify(response)}`);
    }
    const card = await bridge.call("agent/getCard");
    assert.equal(card.capabilities.streaming, true);
    assert.deepEqual(bridge.pendingRawResponses(), [], "exactly one answer per garbage line");
  });

  it("a line over the limit gets -32600 and is discarded; then a request succeeds", async () => {
    const request = { jsonrpc: "2.0", id: "too-long", method: "agent/getCard", params: { pad: "" } };
    const overhead = JSON.stringify(request).length;
    request.params.pad = "p".repeat(10_000 - overhead);
    const line = JSON.stringify(request);
    assert.equal(line.length, 10_000);
    // In a few pieces, each read by the bridge before the next is sent, as a slow writer would send it.
    const sendRead = async (piece: string) => {
      const before = readBytes(bridge.pid) ?? 0;
      bridge.sendBytes(piece);
      assert.ok(await trueWithin(() => (readBytes(bridge.pid) ?? Number.POSITIVE_INFINITY) >= before + piece.length));
    };
    await sendRead(line.slice(0, 3000));
    await sendRead(line.slice(3000, 7000));
    bridge.sendBytes(`${line.slice(7000)}\n`);
    const response = await bridge.nextRawResponse();
    assert.equal(response.error?.code, -32600, JSON.stringify(response));
    assert.equal(response.id, "too-long", "the id is read from the start of the line (CONTRACT 5.1)");
    const list = await bridge.call("tasks/list", {});
    assert.ok(Array.isArray(list.tasks));
    assert.deepEqual(bridge.pendingRawResponses(), [], "the discarded line was not answered as well");
  });

  it("a request of exactly the limit is served", async () => {
    const request = { jsonrpc: "2.0", id: "at-limit", method: "tasks/list", params: { pad: "" } };
    request.params.pad = "q".repeat(LIMIT - JSON.stringify(request).length);
    const line = JSON.stringify(request);
    assert.equal(Buffer.byteLength(line), LIMIT);
    bridge.sendLine(line);
    const response = await bridge.nextRawResponse();
    assert.equal(response.id, "at-limit");
    assert.ok(Array.isArray(response.result?.tasks), JSON.stringify(response));
  });

  it("a \\r\\n-terminated request works", async () => {
    bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", id: "crlf", method: "agent/getCard" }), "\r\n");
    const response = await bridge.nextRawResponse();
    assert.equal(response.id, "crlf");
    assert.equal(response.result?.capabilities?.streaming, true, JSON.stringify(response));
  });

  it("a batch of [valid, invalid object, valid] gets an array of 3 responses", async () => {
    bridge.sendLine(
      JSON.stringify([
        { jsonrpc: "2.0", id: "b1", method: "agent/getCard" },
        { foo: "bar" },
        { jsonrpc: "2.0", id: "b3", method: "tasks/list", params: {} },
      ]),
    );
    const response = await bridge.nextRawResponse();
    assert.ok(Array.isArray(response), JSON.stringify(response));
    assert.equal(response.length, 3);
    const byId = new Map((response as Wire[]).map((r) => [r.id, r]));
    assert.equal(byId.get("b1")?.result?.capabilities?.streaming, true);
    assert.ok(Array.isArray(byId.get("b3")?.result?.tasks));
    const invalid = (response as Wire[]).find((r) => r.id !== "b1" && r.id !== "b3");
    assert.equal(invalid?.id, null);
    assert.equal(invalid?.error?.code, -32600);
  });

  it("a batch with a bad request inside keeps its id in the error", async () => {
    bridge.sendLine(
      JSON.stringify([
        { jsonrpc: "2.0", id: "n1", method: 42 },
        { jsonrpc: "2.0", id: "n2", method: "no/such/method" },
      ]),
    );
    const response = (await bridge.nextRawResponse()) as Wire[];
    assert.ok(Array.isArray(response));
    const byId = new Map(response.map((r) => [r.id, r]));
    assert.equal(byId.get("n1")?.error?.code, -32600);
    assert.equal(byId.get("n2")?.error?.code, -32601);
  });

  it("an empty batch is -32600", async () => {
    bridge.sendLine("[]");
    const response = await bridge.nextRawResponse();
    assert.ok(!Array.isArray(response), "a single response, not an array");
    assert.equal(response.error?.code, -32600);
    assert.equal(response.id, null);
  });

  it("a request that is a JSON number (or a string, or null) is -32600", async () => {
    for (const value of ["5", '"text"', "null", "true"]) {
      bridge.sendLine(value);
      const response = await bridge.nextRawResponse();
      assert.equal(response.error?.code, -32600, `${value}: ${JSON.stringify(response)}`);
      assert.equal(response.id, null);
    }
  });

  it("a request without jsonrpc 2.0 is -32600 with its id", async () => {
    bridge.sendLine(JSON.stringify({ jsonrpc: "1.0", id: "old", method: "agent/getCard" }));
    const response = await bridge.nextRawResponse();
    assert.equal(response.error?.code, -32600);
    assert.equal(response.id, "old");
  });

  it("a notification (no id) gets no response", async () => {
    bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", method: "tasks/list", params: {} }));
    bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", id: "after-notification", method: "agent/getCard" }));
    const response = await bridge.nextRawResponse();
    assert.equal(response.id, "after-notification");
  });

  it("a batch of notifications only gets no response at all", async () => {
    bridge.sendLine(
      JSON.stringify([
        { jsonrpc: "2.0", method: "tasks/list", params: {} },
        { jsonrpc: "2.0", method: "agent/getCard" },
      ]),
    );
    bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", id: "after-batch", method: "agent/getCard" }));
    const response = await bridge.nextRawResponse();
    assert.equal(response.id, "after-batch", JSON.stringify(response));
  });

  it("blank lines are ignored", async () => {
    bridge.sendBytes("\n\r\n   \n");
    bridge.sendLine(JSON.stringify({ jsonrpc: "2.0", id: "after-blank", method: "agent/getCard" }));
    const response = await bridge.nextRawResponse();
    assert.equal(response.id, "after-blank");
  });

  it("every stdout line was JSON-RPC 2.0 and the bridge is still up", async () => {
    assert.deepEqual(bridge.protocolProblems, []);
    assert.equal(bridge.exitStatus, undefined);
    assert.equal(notJsonRpc({ jsonrpc: "2.0", id: 1, result: null }), undefined);
  });
});
