// What the deterministic fixture runners write, built by the same generators as their runner.mjs, so the bytes a
// task reports can be checked against the bytes its command wrote (test/fixtures/README.md).
import assert from "node:assert/strict";
import type { RpcBridge } from "./bridge.js";
import { envelopeParams } from "./envelopes.js";
import type { Wire } from "./wire.js";

/** The `payload` fixture's output for a seed: exactly `size` bytes of `seed-<seed>-<kind>-<n>` lines. */
export function payload(kind: "line" | "err", size: number, seed: string): string {
  let text = "";
  for (let i = 0; text.length < size; i++) text += `seed-${seed}-${kind}-${i}\n`;
  return Buffer.from(text.slice(0, size), "utf8").toString("utf8");
}

/** The `payload-msg` fixture's output for a message. */
export function payloadFor(message: string): { stdout: string; stderr: string } {
  const make = (kind: string, size: number) => {
    const lines: string[] = [];
    let bytes = 0;
    for (let i = 0; bytes < size; i++) {
      const line = `${kind} ${message} ${i} é€𝄞\n`;
      lines.push(line);
      bytes += Buffer.byteLength(line);
    }
    return lines.join("");
  };
  return { stdout: make("out", 16 * 1024), stderr: make("err", 4 * 1024) };
}

/**
 * Starts `fixture` (one that prints `pid <n>`, its process group) through message/stream and reads that pid; the
 * group is pushed to `track`, for the caller's clean-up.
 */
export async function startWithPid(
  bridge: RpcBridge,
  fixture: string,
  track: number[],
): Promise<{ task: Wire; pgid: number }> {
  const task = await bridge.call("message/stream", envelopeParams(fixture, { envelope: { timeout_seconds: 60 } }));
  const printed = await bridge.nextEvent(
    task.id,
    (e) => e.kind === "artifact-update" && e.artifact.artifactId === "stdout",
  );
  const pgid = Number(/pid (\d+)/.exec(printed.artifact.parts[0].text)?.[1]);
  assert.ok(pgid > 0, printed.artifact.parts[0].text);
  track.push(pgid);
  return { task, pgid };
}
