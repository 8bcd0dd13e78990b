// Many prompts through one bridge: every prompt a runner prints is raised once output has been quiet for the
// settle window (CONTRACT section 4), however the settle timer and the wall clock happen to line up.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { HITL_URI as HITL } from "../../src/core/uris.js";
import { RpcBridge } from "../helpers/bridge.js";
import { envelopeParams } from "../helpers/envelopes.js";
import { artifactText, type Wire } from "../helpers/wire.js";

const PROMPTS = 100;
const CONCURRENT = 16;

describe("prompts: 100 text-line prompts through one bridge", () => {
  let bridge: RpcBridge;
  before(() => {
    bridge = new RpcBridge({ args: ["--max-concurrent", String(CONCURRENT)] });
  });
  after(() => bridge.kill());

  it(`${PROMPTS} ask-slow runs, ${CONCURRENT} at a time: every prompt is raised, answered and delivered`, async () => {
    const lost: string[] = [];
    const wrong: string[] = [];
    await Promise.all(
      Array.from({ length: PROMPTS }, async (_, i) => {
        // A 5 s deadline: a prompt that is never raised ends the blocking send as failed (timeout).
        const params = envelopeParams("ask-slow", {
          envelope: { input_mode: "text-line", timeout_seconds: 5 },
          extensions: HITL,
        });
        const task: Wire = await bridge.call("message/send", params, 60_000);
        if (task.status.state !== "input-required") {
          lost.push(
            `#${i}: ${task.status.state} (${task.status.message?.parts?.[0]?.text}), output ${JSON.stringify(artifactText(task, "stdout"))}`,
          );
          return;
        }
        const promptId = task.status.message.metadata[HITL].prompt_id;
        const text = `answer-${i}`;
        const answered = await bridge.callRaw("message/send", {
          message: {
            kind: "message",
            messageId: `a-${i}`,
            role: "user",
            parts: [{ kind: "text", text }],
            taskId: task.id,
            contextId: task.contextId,
            metadata: { hitl_response_for: { prompt_id: promptId, payload: { text } } },
          },
        });
        if (answered.error) {
          wrong.push(`#${i}: answer refused: ${JSON.stringify(answered.error)}`);
          return;
        }
        for (let tries = 0; tries < 200; tries++) {
          const got = await bridge.call("tasks/get", { id: task.id });
          if (got.status.state === "completed") {
            if (artifactText(got, "stdout") !== `Proceed? [y/N] got ${text}\n`)
              wrong.push(`#${i}: stdout ${JSON.stringify(artifactText(got, "stdout"))}`);
            return;
          }
          if (got.status.state === "failed" || got.status.state === "canceled") {
            wrong.push(`#${i}: ${got.status.state} after the answer`);
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        wrong.push(`#${i}: did not end after the answer`);
      }),
    );
    assert.deepEqual(
      lost,
      [],
      `${lost.length} of ${PROMPTS} prompts were never raised (the runner printed "Proceed? [y/N] " and waited)`,
    );
    assert.deepEqual(wrong, []);
    assert.deepEqual(await bridge.close(), { code: 0, signal: null });
  });
});
