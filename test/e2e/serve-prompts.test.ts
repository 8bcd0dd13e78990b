// The prompt corpus through `serve --stdio` (CONTRACT section 4): real tools' output, written by a runner that then
// stays quiet. Finished log lines that mention a marker, and prompts erased on screen, never make the task
// input-required; real prompts do, with the line the terminal shows.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HITL_URI } from "../../src/core/uris.js";
import { type RpcBridge, startBridge } from "../helpers/bridge.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { NOT_PROMPTS, REAL_PROMPTS } from "../helpers/prompt-corpus.js";
import { artifactText } from "../helpers/wire.js";

/** A text-line task on `say`: it writes `output`, then stays quiet for `quietMs`. */
const say = (output: string, quietMs: number) =>
  envelopeParams("say", {
    text: JSON.stringify({ write: output, quietMs }),
    envelope: { input_mode: "text-line" },
    extensions: HITL_URI,
  });

describe("serve --stdio: the prompt corpus", () => {
  let bridge: RpcBridge;

  before(async () => {
    bridge = startBridge({ args: ["--settle-ms", "100", "--max-concurrent", "8"] });
    await bridge.ready();
  });
  after(async () => {
    await bridge.close();
  });

  it(`${NOT_PROMPTS.length} outputs that are no prompt: each task completes without asking`, async () => {
    const asked: string[] = [];
    await Promise.all(
      NOT_PROMPTS.map(async (output) => {
        // Quiet for 6 settle windows: a prompt, if it were one, is raised long before the runner exits.
        const task = await bridge.call("message/send", say(output, 600), 60_000);
        if (task.status.state !== "completed") {
          asked.push(`${JSON.stringify(output)}: ${task.status.state} ${JSON.stringify(task.status.message?.parts)}`);
          if (task.status.state === "input-required") await bridge.call("tasks/cancel", { id: task.id });
          return;
        }
        assert.equal(artifactText(task, "stdout"), output);
      }),
    );
    assert.deepEqual(asked, []);
  });

  it(`${REAL_PROMPTS.length} real prompts: each task is input-required with the prompt as shown`, async () => {
    const missed: string[] = [];
    await Promise.all(
      REAL_PROMPTS.map(async ({ what, output, prompt }) => {
        const task = await bridge.call("message/send", say(output, 30_000), 60_000);
        const raised = task.status.message?.metadata?.[HITL_URI]?.prompt;
        if (task.status.state !== "input-required" || raised !== prompt)
          missed.push(`${what}: ${task.status.state}, prompt ${JSON.stringify(raised)}`);
        await bridge.call("tasks/cancel", { id: task.id }).catch(() => {});
      }),
    );
    assert.deepEqual(missed, []);
  });
});
