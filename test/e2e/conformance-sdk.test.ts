// The suite against the official SDK's own server (@a2a-js/sdk/server, DefaultRequestHandler) with an executor
// that knows nothing of adapter-command/v1: it completes every message with its text as output. Every ADAPTER-*
// scenario that needs the extension fails there; only ADAPTER-ECHO, the plain echo, passes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { TaskState } from "@a2a-js/sdk";
import type { AgentExecutor } from "@a2a-js/sdk/server";
import { runConformance } from "../helpers/conformance.js";
import { type SdkServer, startSdkServer } from "../helpers/sdk-server.js";

/** Echoes the message's text as an artifact and completes: a plain A2A agent. */
const echo: AgentExecutor = {
  async execute(context, bus) {
    const { taskId, contextId, userMessage } = context;
    const text = userMessage.parts.map((part) => (part.content?.$case === "text" ? part.content.value : "")).join("\n");
    const now = () => new Date().toISOString();
    bus.publish({
      kind: "task",
      data: {
        id: taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: undefined, timestamp: now() },
        artifacts: [],
        history: [userMessage],
        metadata: {},
      },
    });
    bus.publish({
      kind: "artifactUpdate",
      data: {
        taskId,
        contextId,
        artifact: {
          artifactId: "echo",
          name: "echo",
          description: "",
          parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" }],
          metadata: {},
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      },
    });
    bus.publish({
      kind: "statusUpdate",
      data: {
        taskId,
        contextId,
        status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
        metadata: undefined,
      },
    });
    bus.finished();
  },
  async cancelTask(taskId, bus) {
    bus.publish({
      kind: "statusUpdate",
      data: {
        taskId,
        contextId: "",
        status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
        metadata: undefined,
      },
    });
    bus.finished();
  },
};

describe("conformance against the @a2a-js/sdk server with an executor that ignores the extension", {
  timeout: 180_000,
}, () => {
  let server: SdkServer | undefined;
  let base = "";
  before(async () => {
    server = await startSdkServer({
      name: "sdk echo agent",
      description: "echoes text; knows no extension",
      extensions: [],
      executor: echo,
    });
    base = server.base;
  });
  after(() => server?.close());

  for (const binding of ["jsonrpc", "rest"]) {
    it(`${binding}: every ADAPTER-* scenario but the echo fails, and the suite exits 1`, async () => {
      const { code, report } = await runConformance(["--server", base, "--binding", binding, "--only", "ADAPTER"]);
      const verdicts = Object.fromEntries(report.results.map((result) => [result.id, result.verdict]));
      assert.ok(report.results.length >= 14, JSON.stringify(verdicts));
      for (const [id, verdict] of Object.entries(verdicts))
        assert.equal(
          verdict,
          id === "ADAPTER-ECHO" ? "pass" : "fail",
          `${id}: ${JSON.stringify(report.results.find((r) => r.id === id))}`,
        );
      // Each failure is a check that did not hold, not an answer the suite could not read.
      for (const result of report.results.filter((r) => r.verdict === "fail"))
        assert.notEqual(result.expected, "an answer the scenario can read", JSON.stringify(result));
      assert.equal(code, 1);
    });
  }
});
