// The requests the scenarios send (A2A 1.0 ProtoJSON shapes, §5 of the JSON binding) and the calls they make again
// and again: a send that must succeed, waiting for a state, canceling what a scenario left running.
import { randomUUID } from "node:crypto";
import type { Answer, CallOptions, Json } from "./driver.js";
import { brief } from "./http.js";
import { expect, Mismatch, type ScenarioContext } from "./scenario.js";
import { ENDED, stateOf, taskOf } from "./task-fields.js";
import { ADAPTER, HITL } from "./uris.js";
import { type RequestName, RUNNER_PATH, requestPath } from "./workspace.js";

export interface Envelope {
  adapter?: unknown;
  mode?: unknown;
  command?: unknown;
  working_dir?: unknown;
  timeout_seconds?: unknown;
  input_mode?: unknown;
}

/** A valid envelope running `request` (the seed's example, with the conformance runner's request). */
export function envelope(request: RequestName, fields: Envelope = {}): Envelope {
  const all: Envelope = {
    adapter: "sandbox-agent-runner",
    mode: "plan",
    command: ["node", RUNNER_PATH, "--request", requestPath(request)],
    working_dir: "/workspace",
    timeout_seconds: 120,
    ...fields,
  };
  // A field given as undefined is left out (protobuf's Struct, on gRPC, has no undefined).
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined));
}

export interface SendShape {
  text?: string;
  messageId?: string;
  contextId?: string;
  returnImmediately?: boolean;
  /** Extra message fields (taskId, metadata). */
  message?: Json;
}

/** SendMessage params: a user message, its envelope in `metadata[ADAPTER]` when one is given. */
export function sendParams(env: Envelope | undefined, shape: SendShape = {}): Json {
  const message: Json = {
    messageId: shape.messageId ?? randomUUID(),
    role: "ROLE_USER",
    parts: [{ text: shape.text ?? "conformance" }],
    ...(shape.contextId ? { contextId: shape.contextId } : {}),
    ...(env ? { metadata: { [ADAPTER]: env } } : {}),
    ...shape.message,
  };
  return { message, ...(shape.returnImmediately ? { configuration: { returnImmediately: true } } : {}) };
}

/** An answer to a prompt (hitl-prompt/v1 "Response"): `metadata.hitl_response_for`. */
export function answerParams(task: Json, promptId: string, payload: Json, shape: SendShape = {}): Json {
  return sendParams(undefined, {
    ...shape,
    text: typeof payload?.text === "string" && payload.text !== "" ? payload.text : "answer",
    message: { taskId: task.id, metadata: { hitl_response_for: { prompt_id: promptId, payload } } },
  });
}

/** How an answer is shown in a mismatch. */
export function shown(answer: Answer): string {
  if (answer.error) return `error ${brief(answer.error, 400)}`;
  return `a success${answer.status === 200 ? "" : ` (HTTP ${answer.status})`}: ${brief(answer.result, 400)}`;
}

/** A SendMessage that must succeed; its task. */
export async function sendOk(ctx: ScenarioContext, params: Json, options: CallOptions = {}): Promise<Json> {
  const answer = await ctx.driver.call("SendMessage", params, options);
  expect(!answer.error && taskOf(answer.result)?.id !== undefined, "a task", () => shown(answer));
  return taskOf(answer.result);
}

/** GetTask until `holds` (polling every 50 ms, at most `--max-wait`). */
export async function waitFor(
  ctx: ScenarioContext,
  id: string,
  holds: (task: Json) => boolean,
  what: string,
): Promise<Json> {
  const until = Date.now() + ctx.maxWaitMs;
  let last: Answer | undefined;
  for (;;) {
    last = await ctx.driver.call("GetTask", { id });
    if (!last.error && holds(last.result)) return last.result;
    if (Date.now() > until) throw new Mismatch(`${what} within ${ctx.maxWaitMs} ms`, shown(last));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** GetTask until the task is in a terminal state. */
export function waitEnded(ctx: ScenarioContext, id: string, what = "the task ended"): Promise<Json> {
  return waitFor(ctx, id, (task) => ENDED.has(stateOf(task)), what);
}

/** Cancels a task a scenario left running, quietly (cleanup). */
export async function cancelQuietly(ctx: ScenarioContext, id: unknown): Promise<void> {
  if (typeof id === "string") await ctx.driver.call("CancelTask", { id }).catch(() => {});
}

/** The task's state reached through an adapter envelope, with the text-line activation when it asks. */
export const HITL_ON: CallOptions = { extensions: [HITL] };
