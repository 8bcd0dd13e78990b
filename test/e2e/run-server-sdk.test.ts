// `run --server` and `tasks` against an A2A server that is not ours: the official @a2a-js/sdk server (express,
// DefaultRequestHandler) with a tiny executor that speaks the extensions: its card declares adapter-command/v1
// and hitl-prompt/v1, it writes two output parts, asks one prompt and completes on the answer. So the client
// depends on A2A and the extensions' contract (CONTRACT 4, 5.4), not on our server.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type Part, TaskState } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus } from "@a2a-js/sdk/server";
import { ADAPTER_URI, HITL_URI } from "../../src/core/uris.js";
import { runCli } from "../helpers/cli.js";
import { type SdkServer, startSdkServer } from "../helpers/sdk-server.js";

const PROMPT = "Proceed? [y/N]";

/** A task of the executor: output parts with seq (shared by both streams, CONTRACT 5.4), then a prompt. */
function part(text: string, seq: number): Part {
  return { content: { $case: "text", value: text }, metadata: { seq }, filename: "", mediaType: "" };
}

function output(bus: ExecutionEventBus, taskId: string, contextId: string, stream: string, parts: Part[]) {
  bus.publish({
    kind: "artifactUpdate",
    data: {
      taskId,
      contextId,
      artifact: { artifactId: stream, name: stream, description: "", parts, metadata: {}, extensions: [] },
      append: true,
      lastChunk: false,
      metadata: undefined,
    },
  });
}

function status(
  bus: ExecutionEventBus,
  taskId: string,
  contextId: string,
  state: TaskState,
  extra: { message?: string; promptId?: string; adapter?: Record<string, unknown> } = {},
) {
  const message = extra.message
    ? {
        messageId: extra.promptId ?? `m-${Date.now()}`,
        contextId,
        taskId,
        role: 2,
        parts: [part(extra.message, 0)].map((p) => ({ ...p, metadata: undefined })),
        metadata: extra.promptId
          ? {
              [HITL_URI]: {
                prompt_id: extra.promptId,
                prompt: extra.message,
                deadline: new Date(Date.now() + 60_000).toISOString(),
                allowed_responders: ["any"],
              },
            }
          : undefined,
        extensions: extra.promptId ? [HITL_URI] : [],
        referenceTaskIds: [],
      }
    : undefined;
  bus.publish({
    kind: "statusUpdate",
    data: {
      taskId,
      contextId,
      status: { state, message, timestamp: new Date().toISOString() },
      metadata: extra.adapter ? { [ADAPTER_URI]: extra.adapter } : undefined,
    },
  });
}

/** Asks once; completes with exit 0 on "y", fails with exit 1 on anything else. */
const executor: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId } = context;
    const answer = context.userMessage.metadata?.hitl_response_for as { payload?: { text?: string } } | undefined;
    if (!context.task) {
      bus.publish({
        kind: "task",
        data: {
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
          artifacts: [],
          history: [context.userMessage],
          metadata: {},
        },
      });
      status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING);
      output(bus, taskId, contextId, "stdout", [part("hello from the sdk\n", 1)]);
      output(bus, taskId, contextId, "stderr", [part("warming up\n", 2)]);
      output(bus, taskId, contextId, "stdout", [part(`${PROMPT} `, 3)]);
      status(bus, taskId, contextId, TaskState.TASK_STATE_INPUT_REQUIRED, { message: PROMPT, promptId: `p-${taskId}` });
      return;
    }
    const text = answer?.payload?.text ?? "";
    status(bus, taskId, contextId, TaskState.TASK_STATE_WORKING);
    output(bus, taskId, contextId, "stdout", [part(`got ${text}\n`, 4)]);
    const ok = text === "y";
    status(bus, taskId, contextId, ok ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_FAILED, {
      message: ok ? "completed" : "failed: the answer was not y",
      adapter: { exit_code: ok ? 0 : 1, fail_kind: ok ? null : "application", reason: "exit" },
    });
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    status(bus, taskId, "", TaskState.TASK_STATE_CANCELED);
    bus.finished();
  },
};

const scratch = mkdtempSync(join(tmpdir(), "run-server-sdk-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe("run --server against the @a2a-js/sdk server", { timeout: 120_000 }, () => {
  let server: SdkServer | undefined;
  let base = "";
  const file = join(scratch, "envelope.json");
  before(async () => {
    writeFileSync(
      file,
      JSON.stringify({
        adapter: "sandbox-agent-runner",
        mode: "plan",
        command: ["node", "x.mjs", "--request", "req.json"],
        working_dir: ".",
        timeout_seconds: 30,
        input_mode: "text-line",
      }),
    );
    server = await startSdkServer({
      name: "sdk agent",
      description: "speaks adapter-command/v1 and hitl-prompt/v1",
      extensions: [ADAPTER_URI, HITL_URI],
      executor,
    });
    base = server.base;
  });
  after(() => server?.close());

  for (const binding of ["jsonrpc", "rest"]) {
    it(`${binding}: output, the prompt answered with --answer y, exit 0`, async () => {
      const result = await runCli(["run", "--server", base, "--binding", binding, "--answer", "y", file], {
        timeoutMs: 30_000,
      });
      const why = `exit ${result.code}\n${result.stdout}\n${result.stderr}`;
      assert.equal(result.code, 0, why);
      assert.equal(result.stdout, `hello from the sdk\n${PROMPT} got y\n`, why);
      assert.match(result.stderr, /warming up\n/, why);
      assert.match(result.stderr, /answered "Proceed\? \[y\/N\]" with "y"/, why);
    });
  }

  it("the answer n: the task fails, exit 1", async () => {
    const result = await runCli(["run", "--server", base, "--answer", "n", file], { timeoutMs: 30_000 });
    assert.equal(result.code, 1, `${result.stdout}\n${result.stderr}`);
  });
});
