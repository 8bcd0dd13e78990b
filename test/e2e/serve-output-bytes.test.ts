// Byte counts over `serve --stdio` measure what the command wrote, not its decoded text (CONTRACT sections 3.3 and
// 5.4): `binary` writes 344 505 bytes that are mostly not UTF-8, which decode to about 624 KB of text.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { BINARY_STDOUT_BYTES, binaryFixtureBytes } from "../helpers/binary-output.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const artifactMeta = (task: Wire, stream: "stdout" | "stderr") =>
  (task.artifacts as Wire[]).find((artifact) => artifact.artifactId === stream)?.metadata;

describe("serve --stdio: total_bytes and dropped_bytes count the bytes written", () => {
  const written = binaryFixtureBytes();
  const bridges: RpcBridge[] = [];
  const limited = 64 * 1024;
  let bridge: RpcBridge;
  let small: RpcBridge;

  before(async () => {
    bridge = startBridge();
    small = startBridge({ args: ["--max-output-bytes", String(limited)] });
    bridges.push(bridge, small);
    await Promise.all(bridges.map((one) => one.ready()));
  });
  after(async () => {
    await Promise.all(bridges.map((one) => one.close()));
  });

  it("binary output: tasks/get reports exactly the bytes of each stream, and the text is their decoding", async () => {
    const sent = await bridge.call("message/send", envelopeParams("binary"));
    assert.equal(sent.status.state, "completed", JSON.stringify(sent.status));
    const task = await bridge.call("tasks/get", { id: sent.id });
    assert.deepEqual(artifactMeta(task, "stdout"), { total_bytes: BINARY_STDOUT_BYTES, dropped_bytes: 0 });
    assert.deepEqual(artifactMeta(task, "stderr"), { total_bytes: 5, dropped_bytes: 0 });
    assert.equal(artifactText(task, "stdout"), written.stdout.toString("utf8"));
    assert.equal(artifactText(task, "stderr"), "€\uFFFD\n");
  });

  it("with --max-output-bytes 65536: the total is still what was written, and the dropped part is within it", async () => {
    const sent = await small.call("message/send", envelopeParams("binary"));
    assert.equal(sent.status.state, "completed", JSON.stringify(sent.status));
    const task = await small.call("tasks/get", { id: sent.id });
    const meta = artifactMeta(task, "stdout");
    assert.equal(meta.total_bytes, BINARY_STDOUT_BYTES);
    // Each stream keeps half the limit, in whole chunks (one chunk, at most a 64 KiB pipe read, may overshoot).
    const kept = meta.total_bytes - meta.dropped_bytes;
    assert.ok(kept > 0 && kept <= limited / 2 + 64 * 1024, `kept ${kept} of ${meta.total_bytes} written bytes`);
    const text = artifactText(task, "stdout");
    const decoded = written.stdout.toString("utf8");
    assert.ok(text.length < decoded.length, "the middle was dropped");
  });
});
