// The stdio bridge hears the end of its input even while nobody reads its output, and its working status names the
// running pid (CONTRACT 5.5).
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { FIXTURES, startCli } from "../helpers/cli.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { pidRunning } from "../helpers/processes.js";

const send = (id: number, workingDir: string, method = "message/stream") =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, params: envelopeParams(`${FIXTURES}/${workingDir}`, { envelope: { timeout_seconds: 60 } }) })}\n`;

describe("serve --stdio: stdin EOF while stdout is not read", () => {
  it("exits 0 within 5 s and leaves no runner behind, though its output pipe is full", async () => {
    const bridge = startCli(["serve", "--stdio"]);
    // The flood runner fills stdout; this test never reads it.
    bridge.stdin.write(send(1, "flood"));
    bridge.stdin.write(send(2, "pid-hang"));
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const closedAt = Date.now();
    bridge.stdin.end();
    const code = await new Promise<number | null>((resolve) => bridge.once("exit", (c) => resolve(c)));
    const took = Date.now() - closedAt;
    assert.equal(code, 0);
    assert.ok(took < 5000, `exited ${took} ms after stdin closed`);
    bridge.stdout.destroy();
  });
});

describe("serve --stdio: the working status carries the pid", () => {
  it("the status-update that says working names the runner's pid, and that process runs", async () => {
    const bridge = startCli(["serve", "--stdio"]);
    let text = "";
    const working = new Promise<{ pid?: number }>((resolve) => {
      bridge.stdout.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        for (const line of text.split("\n").slice(0, -1)) {
          const message = JSON.parse(line);
          const status = message.params?.status;
          if (message.method === "tasks/event" && status?.state === "working")
            resolve({ pid: message.params.metadata?.[ADAPTER_URI]?.pid });
        }
      });
    });
    bridge.stdin.write(send(1, "pid-hang"));
    const seen = await working;
    const task = await new Promise<Record<string, unknown>>((resolve) => {
      bridge.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tasks/list", params: {} })}\n`);
      const check = () => {
        for (const line of text.split("\n").slice(0, -1)) {
          const message = JSON.parse(line);
          if (message.id === 2) return resolve(message.result.tasks[0]);
        }
        setTimeout(check, 20);
      };
      check();
    });
    assert.equal(typeof seen.pid, "number", "the working status-update names the pid");
    assert.equal(pidRunning(seen.pid as number), true, "that process is running");
    assert.equal((task.metadata as Record<string, { pid: number }>)[ADAPTER_URI]?.pid, seen.pid);
    bridge.stdin.end();
    await new Promise((resolve) => bridge.once("exit", resolve));
    assert.equal(pidRunning(seen.pid as number), false, "and it is gone after the bridge");
  });
});
