// The end of `serve --stdio`'s input (CONTRACT 5.5): no more requests are read; a task waiting for an answer is
// canceled (input_closed), and so is one that asks later; what runs goes on to its end and its answers and events
// are written; then exit 0. A signal still stops everything at once. The working status names the running pid.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ADAPTER_URI } from "../../src/core/uris.js";
import { startBridge } from "../helpers/bridge.js";
import { FIXTURES, runCli, startCli } from "../helpers/cli.js";
import { envelopeParams, textLineParams } from "../helpers/envelopes.js";
import { pidRunning } from "../helpers/processes.js";
import { artifactText, eventText, type Wire } from "../helpers/wire.js";

const line = (id: string | number, method: string, params: unknown) =>
  `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;

describe("serve --stdio: the end of input", () => {
  it("printf '<request>\\n' | adapter-command serve --stdio prints the finished task and exits 0", async () => {
    const result = await runCli(["serve", "--stdio", "--workspace", FIXTURES], {
      input: line(1, "message/send", envelopeParams("interleave-slow")),
    });
    assert.equal(result.code, 0, result.stderr);
    const [answer, ...rest] = result.stdout.trim().split("\n");
    assert.deepEqual(rest, [], "one answer, nothing else");
    const task = JSON.parse(answer as string).result;
    assert.equal(task.status.state, "completed", answer);
    assert.match(artifactText(task, "stdout"), /out 50\n$/);
  });

  it("a task waiting for an answer is canceled (input_closed), so is one that asks later, the others finish", async () => {
    const bridge = startBridge();
    await bridge.ready();
    // One waits for an answer when the input ends; one asks after that; one just runs.
    const waiting = await bridge.call("message/stream", textLineParams("ask-slow"));
    await bridge.nextEvent(waiting.id, (e) => e.kind === "status-update" && e.status.state === "input-required");
    const later = await bridge.call("message/stream", textLineParams("ask-slow"));
    const runs = await bridge.call("message/stream", envelopeParams("interleave-slow"));
    bridge.child.stdin.end();

    const exit = await bridge.waitExit(20_000);
    assert.deepEqual(exit, { code: 0, signal: null }, bridge.stderr);
    for (const task of [waiting, later]) {
      const events = await bridge.eventsUntilFinal(task.id, 1000);
      const final = events.at(-1) as Wire;
      assert.equal(final.status.state, "canceled", JSON.stringify(final));
      // The words of reason input_closed (the final event carries no reason of its own).
      assert.match(final.status.message.parts[0].text, /^canceled: the input ended while it waited for an answer/);
    }
    const events = await bridge.eventsUntilFinal(runs.id, 1000);
    assert.equal(events.at(-1)?.status.state, "completed", "what ran went on to its end");
    assert.match(eventText(events, "stdout"), /out 50\n$/, "and every event of it was written");
    assert.deepEqual(bridge.protocolProblems, []);
  });

  it("a signal after the end of input still stops at once: exit 0 within 5 s, no runner left", async () => {
    const bridge = startBridge();
    await bridge.ready();
    const task = await bridge.call("message/stream", envelopeParams("pid-hang", { envelope: { timeout_seconds: 60 } }));
    const working = await bridge.nextEvent(task.id, (e) => e.kind === "status-update" && e.status.state === "working");
    const pid = (working as Wire).metadata?.[ADAPTER_URI]?.pid as number;
    bridge.child.stdin.end();
    await bridge.waitStderr(/end of input/);
    assert.equal(pidRunning(pid), true, "the runner goes on after the end of input");
    const t0 = Date.now();
    bridge.child.kill("SIGTERM");
    assert.deepEqual(await bridge.waitExit(8000), { code: 0, signal: null }, bridge.stderr);
    assert.ok(Date.now() - t0 < 5000, `exited ${Date.now() - t0} ms after the signal`);
    assert.equal(pidRunning(pid), false, "and it is gone after the bridge");
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
    bridge.stdin.write(
      line(1, "message/stream", envelopeParams(`${FIXTURES}/pid-hang`, { envelope: { timeout_seconds: 60 } })),
    );
    const seen = await working;
    const task = await new Promise<Record<string, unknown>>((resolve) => {
      bridge.stdin.write(line(2, "tasks/list", {}));
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
    bridge.kill("SIGTERM");
    await new Promise((resolve) => bridge.once("exit", resolve));
    assert.equal(pidRunning(seen.pid as number), false, "and it is gone after the bridge");
  });
});
