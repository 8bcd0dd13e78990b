// `run --json` end to end: the task's A2A 0.3 events as NDJSON on stdout (CONTRACT sections 3.3, 5.3 and 6).
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { describe, it } from "node:test";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { binaryFixtureBytes } from "../helpers/binary-output.js";
import { AT_ONCE, type CliOptions, FIXTURES, runCli } from "../helpers/cli.js";
import { writeEnvelope, writeMessage } from "../helpers/envelopes.js";

const runJson = (file: string) => ["run", "--json", "--workspace", FIXTURES, file];

interface Part {
  kind: string;
  text: string;
  metadata?: { seq?: unknown };
}
interface WireEvent {
  kind: string;
  taskId: string;
  contextId: string;
  final?: boolean;
  status?: { state: string; timestamp: string; fail_kind?: string; message?: { parts: Part[] } };
  metadata?: Record<string, Record<string, unknown>>;
  artifact?: { artifactId: string; name: string; parts: Part[] };
  append?: boolean;
  lastChunk?: boolean;
}

/** Every stdout line is one JSON value; returns them in order. */
function parseNdjson(stdout: string): WireEvent[] {
  assert.ok(stdout.endsWith("\n"), "NDJSON ends with a newline");
  return stdout
    .slice(0, -1)
    .split("\n")
    .map((line, index) => {
      try {
        return JSON.parse(line) as WireEvent;
      } catch {
        throw new assert.AssertionError({
          message: `line ${index + 1} is not JSON: ${JSON.stringify(line.slice(0, 200))}`,
        });
      }
    });
}

/** The A2A 0.3 shapes, `final` only on the last event, one task throughout. */
function checkEvents(events: WireEvent[]): void {
  assert.ok(events.length >= 2);
  const [{ taskId, contextId }] = events as [WireEvent];
  for (const [index, event] of events.entries()) {
    const where = `event ${index}: ${JSON.stringify(event).slice(0, 300)}`;
    assert.ok(event.kind === "status-update" || event.kind === "artifact-update", where);
    assert.equal(event.taskId, taskId, where);
    assert.equal(event.contextId, contextId, where);
    if (event.kind === "status-update") {
      assert.equal(typeof event.status?.state, "string", where);
      assert.equal(typeof event.status?.timestamp, "string", where);
      assert.equal(event.final, index === events.length - 1, `final only on the last: ${where}`);
    } else {
      const artifact = event.artifact;
      assert.ok(artifact && (artifact.artifactId === "stdout" || artifact.artifactId === "stderr"), where);
      assert.equal(artifact.parts.length, 1, where);
      const [part] = artifact.parts as [Part];
      assert.equal(part.kind, "text", where);
      assert.equal(typeof part.text, "string", where);
      assert.ok(Number.isInteger(part.metadata?.seq), `parts[0].metadata.seq: ${where}`);
      assert.equal(typeof event.append, "boolean", where);
      assert.equal(typeof event.lastChunk, "boolean", where);
    }
  }
  const last = events.at(-1) as WireEvent;
  assert.equal(last.kind, "status-update", "the last event is the final status");
}

/** The one text part of an artifact-update. */
function partOf(event: WireEvent): Part {
  const part = event.artifact?.parts[0];
  assert.ok(part, `no part: ${JSON.stringify(event)}`);
  return part;
}

/** How the task ended, as the last event's metadata[ADAPTER] says it. */
function endOf(events: WireEvent[]): Record<string, unknown> {
  const end = (events.at(-1) as WireEvent).metadata?.[ADAPTER_URI];
  assert.ok(end, `no metadata[ADAPTER] on the last event: ${JSON.stringify(events.at(-1))}`);
  return end;
}

const artifactEvents = (events: WireEvent[]) => events.filter((event) => event.kind === "artifact-update");
const textOf = (events: WireEvent[], stream: string) =>
  artifactEvents(events)
    .filter((event) => event.artifact?.artifactId === stream)
    .map((event) => partOf(event).text)
    .join("");

/**
 * Runs an interleaving fixture (`out N` / `err N`, N = 1..count) with --json and checks what holds however the
 * chunks arrived: A2A shapes, `final` on the last event only, seq strictly increasing in print order across both
 * streams, `append` false only on each stream's first chunk, each stream's concatenated text exactly as written.
 */
async function interleaved(fixture: string, count: number, options: CliOptions = {}) {
  const result = await runCli(runJson(writeEnvelope({ working_dir: fixture, timeout_seconds: 30 })), options);
  assert.equal(result.code, 0, result.stderr);
  const events = parseNdjson(result.stdout);
  checkEvents(events);
  assert.equal((events.at(-1) as WireEvent).status?.state, "completed");
  const chunks = artifactEvents(events).map((event) => ({
    stream: event.artifact?.artifactId as string,
    text: partOf(event).text,
    seq: partOf(event).metadata?.seq as number,
    append: event.append,
  }));
  for (let i = 1; i < chunks.length; i++) {
    assert.ok((chunks[i]?.seq as number) > (chunks[i - 1]?.seq as number), `seq at artifact event ${i}`);
  }
  for (const stream of ["stdout", "stderr"]) {
    const mine = chunks.filter((chunk) => chunk.stream === stream);
    assert.deepEqual(
      mine.map((chunk) => chunk.append),
      mine.map((_, index) => index > 0),
      `append flags on ${stream}`,
    );
  }
  let out = "";
  let err = "";
  for (let n = 1; n <= count; n++) {
    out += `out ${n}\n`;
    err += `err ${n}\n`;
  }
  assert.equal(textOf(events, "stdout"), out);
  assert.equal(textOf(events, "stderr"), err);
  return { events, chunks };
}

/**
 * Paces `interleave-ack` (test/fixtures/README.md): the Unix socket it connects to, and an `onStdout` for `runCli`
 * that sends it one "\n" for each line the tool has put out in an artifact event. A line in an event is a line the
 * tool has read, so when the fixture writes its next line both pipes are empty: the tool reads the lines, and numbers
 * them, in the order they were written, however loaded the machine is.
 */
async function ackRelay() {
  const dir = mkdtempSync(join(tmpdir(), "interleave-ack-"));
  const path = join(dir, "ack.sock");
  let fixture: Socket | undefined;
  // Lines seen before the fixture's connection was accepted are acknowledged once it is.
  let owed = 0;
  const pay = () => {
    if (fixture === undefined || owed === 0) return;
    fixture.write("\n".repeat(owed));
    owed = 0;
  };
  const server = createServer((socket) => {
    socket.on("error", () => {});
    fixture = socket;
    pay();
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(path, resolve));
  const decoder = new StringDecoder("utf8");
  let partial = "";
  const options: CliOptions = {
    env: { FIXTURE_ACK_SOCKET: path },
    onStdout: (chunk) => {
      const lines = (partial + decoder.write(chunk)).split("\n");
      partial = lines.pop() as string;
      for (const line of lines) {
        let event: WireEvent;
        try {
          event = JSON.parse(line) as WireEvent;
        } catch {
          continue; // parseNdjson reports it once the run is over
        }
        const text = event.kind === "artifact-update" ? event.artifact?.parts[0]?.text : undefined;
        if (typeof text === "string") owed += text.split("\n").length - 1;
      }
      pay();
    },
  };
  return {
    options,
    close(): void {
      fixture?.destroy();
      server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe("run --json: interleaved streams", () => {
  // The order of two pipes written 1 ms apart is only as good as the machine's load allows: this one runs alone.
  it("interleave: A2A events; seq strictly increasing across both streams; each stream's text exact", async () => {
    const { events, chunks } = await interleaved("interleave", 200);
    const states = events.filter((event) => event.kind === "status-update").map((event) => event.status?.state);
    assert.deepEqual(states, ["submitted", "working", "completed"]);
    // The streams really are interleaved by seq, not one after the other. (The exact alternation is not asserted
    // here: with writes 1 ms apart on two pipes, even a bare Node reader sometimes receives two lines swapped;
    // the next test proves the exact rebuild with each line written once the tool has read the one before.)
    let switches = 0;
    const bySeq = [...chunks].sort((a, b) => a.seq - b.seq);
    for (let i = 1; i < bySeq.length; i++) if (bySeq[i]?.stream !== bySeq[i - 1]?.stream) switches += 1;
    assert.ok(switches >= 50, `only ${switches} switches between stdout and stderr in seq order`);
  });

  it("interleave-ack: sorting the chunks by seq rebuilds the exact alternating out N / err N order", async () => {
    let expected = "";
    for (let n = 1; n <= 50; n++) expected += `out ${n}\nerr ${n}\n`;
    const relay = await ackRelay();
    try {
      const { chunks } = await interleaved("interleave-ack", 50, relay.options);
      // Each line was written alone, once the tool had read the one before: each is a chunk of its own.
      assert.equal(chunks.length, 100, "one chunk a line");
      const rebuilt = [...chunks]
        .sort((a, b) => a.seq - b.seq)
        .map((chunk) => chunk.text)
        .join("");
      assert.equal(rebuilt, expected);
    } finally {
      relay.close();
    }
  });
});

// Every other test runs its own command on its own file: they run at once.
describe("run --json", { concurrency: AT_ONCE }, () => {
  it("env: AIWG_A2A_TASK_ID and AIWG_MISSION_ID are the taskId of the events", async () => {
    const file = writeEnvelope({ working_dir: "env", timeout_seconds: 30 }, { text: ["one", "two"] });
    const result = await runCli(runJson(file));
    assert.equal(result.code, 0, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const seen = JSON.parse(textOf(events, "stdout")) as Record<string, unknown>;
    const taskId = (events[0] as WireEvent).taskId;
    assert.match(taskId, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(seen.AIWG_A2A_TASK_ID, taskId);
    assert.equal(seen.AIWG_MISSION_ID, taskId);
    assert.equal(seen.AIWG_A2A_MESSAGE, "one\ntwo");
    assert.equal(seen.AIWG_A2A_ADAPTER_MODE, "plan");
  });

  it("exit3: the final status is failed with fail_kind application, stderr in the stderr artifact", async () => {
    const result = await runCli(runJson(writeEnvelope({ working_dir: "exit3", timeout_seconds: 30 })));
    assert.equal(result.code, 1, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const final = events.at(-1) as WireEvent;
    assert.equal(final.status?.state, "failed");
    assert.equal(final.status?.fail_kind, "application");
    const { exit_code, signal, fail_kind, reason } = endOf(events);
    assert.deepEqual(
      { exit_code, signal, fail_kind, reason },
      { exit_code: 3, signal: null, fail_kind: "application", reason: "exit" },
    );
    assert.equal(textOf(events, "stderr"), "failing\n");
    assert.equal(textOf(events, "stdout"), "");
  });

  it("hang with timeout 1: failed (application), exit 124", async () => {
    const result = await runCli(runJson(writeEnvelope({ working_dir: "hang", timeout_seconds: 1 })));
    assert.equal(result.code, 124, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const final = events.at(-1) as WireEvent;
    assert.equal(final.status?.state, "failed");
    assert.equal(final.status?.fail_kind, "application");
    assert.equal(endOf(events).reason, "timeout");
    assert.equal(endOf(events).fail_kind, "application");
    // "" only when the machine is so loaded that the runner had not printed before the 1 s deadline.
    assert.ok(["hanging\n", ""].includes(textOf(events, "stdout")), textOf(events, "stdout"));
  });

  it("a missing working directory: failed with fail_kind infrastructure, exit 4", async () => {
    const result = await runCli(runJson(writeEnvelope({ working_dir: "does-not-exist" })));
    assert.equal(result.code, 4, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const final = events.at(-1) as WireEvent;
    assert.equal(final.status?.state, "failed");
    assert.equal(final.status?.fail_kind, "infrastructure");
    assert.match(final.status?.message?.parts[0]?.text ?? "", /does-not-exist/);
    assert.equal(endOf(events).fail_kind, "infrastructure");
    assert.equal(endOf(events).reason, "spawn_failed");
    assert.equal(endOf(events).exit_code, null);
  });

  it("echo: completed with the text and a newline as the stdout artifact", async () => {
    const result = await runCli(runJson(writeMessage("hi there")));
    assert.equal(result.code, 0, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    assert.equal((events.at(-1) as WireEvent).status?.state, "completed");
    assert.equal(textOf(events, "stdout"), "hi there\n");
    assert.deepEqual([endOf(events).exit_code, endOf(events).reason, endOf(events).fail_kind], [0, "exit", null]);
  });

  it("binary output: the events carry the decoding of exactly the bytes written, on each stream", async () => {
    // run --json's events carry no byte counts (CONTRACT 5.3); serve-output-bytes.test.ts checks total_bytes.
    const result = await runCli(runJson(writeEnvelope({ working_dir: "binary", timeout_seconds: 30 })));
    assert.equal(result.code, 0, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const written = binaryFixtureBytes();
    assert.equal(textOf(events, "stdout"), written.stdout.toString("utf8"));
    assert.equal(textOf(events, "stderr"), written.stderr.toString("utf8"));
  });

  it("big: 3 MiB of multi-byte UTF-8 in chunks cut inside characters arrive byte for byte", async () => {
    const bytes = 3 * 1024 * 1024;
    const file = writeEnvelope({ working_dir: "big", timeout_seconds: 60 });
    const result = await runCli(runJson(file), { env: { FIXTURE_BYTES: String(bytes) }, timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stderr.slice(0, 2000));
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const text = textOf(events, "stdout");
    assert.equal(Buffer.byteLength(text), bytes);
    const written = /sha256 ([0-9a-f]{64})/.exec(textOf(events, "stderr"))?.[1];
    assert.equal(createHash("sha256").update(text, "utf8").digest("hex"), written);
  });

  it("a finished log line that mentions a marker, then silence: no prompt, the task completes", async () => {
    const output = "INFO Are you sure the cache is warm? checking...\n";
    const file = writeEnvelope(
      { working_dir: "say", timeout_seconds: 30, input_mode: "text-line" },
      { text: JSON.stringify({ write: output, quietMs: 800 }) },
    );
    const result = await runCli(runJson(file));
    assert.equal(result.code, 0, result.stderr);
    const events = parseNdjson(result.stdout);
    checkEvents(events);
    const states = events.filter((event) => event.kind === "status-update").map((event) => event.status?.state);
    assert.deepEqual(states, ["submitted", "working", "completed"]);
    assert.equal(textOf(events, "stdout"), output);
  });

  it("a rejected envelope: one JSON object on stdout with every problem, no event, exit 3", async () => {
    const result = await runCli(runJson(writeEnvelope({ working_dir: "ok", adapter: "other", timeout_seconds: 0 })));
    assert.equal(result.code, 3, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assert.equal(lines.length, 1, result.stdout);
    const rejected = JSON.parse(lines[0] as string) as { kind: string; file: string; message: string; errors: [] };
    assert.equal(rejected.kind, "rejected");
    assert.match(rejected.message, /rejected/);
    const paths = rejected.errors.map((error: { path: string; code: string }) => error.path);
    assert.ok(
      paths.some((path) => path.endsWith("/adapter")),
      JSON.stringify(rejected.errors),
    );
    assert.ok(
      paths.some((path) => path.endsWith("/timeout_seconds")),
      JSON.stringify(rejected.errors),
    );
    assert.match(result.stderr, /adapter/, "the person at the terminal reads it too");
  });

  it("a file that cannot be read: one JSON object on stdout, exit 2", async () => {
    const result = await runCli(runJson("/nonexistent/envelope.json"));
    assert.equal(result.code, 2, result.stderr);
    const unreadable = JSON.parse(result.stdout) as { kind: string; errors: { code: string }[] };
    assert.equal(unreadable.kind, "unreadable");
    assert.equal(unreadable.errors[0]?.code, "file_unreadable");
  });

  it("no containment line on stderr unless --verbose", async () => {
    const result = await runCli(runJson(writeMessage("hi")));
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stderr, /containment/);
  });
});
