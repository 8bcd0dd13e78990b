// IDEM-*: the runtime's idempotency/v1 conformance scenarios (§6 AC-1..AC-4) and its §7.1 rule on messageId. The
// key is the message's messageId; a retry is the same request sent again, so AC-1 sends the very same bytes (on
// JSON-RPC with the same request id, so the whole body can be compared byte for byte).
import { randomUUID } from "node:crypto";
import type { Answer, CallOptions, Json } from "./driver.js";
import { brief } from "./http.js";
import { answerParams, cancelQuietly, envelope, sendParams, shown, waitEnded } from "./messages.js";
import { expect, familyScenarios, type Scenario, type ScenarioContext, Skip } from "./scenario.js";
import { allOutput, promptOf, STATE, stateOf, taskOf } from "./task-fields.js";
import { HITL, IDEMPOTENCY } from "./uris.js";

const SPEC = "idempotency/v1";
const REPLAYED = "idempotent-replayed";
const REUSED = "IDEMPOTENCY_KEY_REUSED_WITH_DIFFERENT_PAYLOAD";

let rpcId = 1_000_000;
/** Activated on every IDEM request whether or not the card requires it: the scenarios test the extension. */
const activated = (extra: string[] = []): CallOptions => ({ extensions: [IDEMPOTENCY, ...extra], jsonrpcId: rpcId++ });

function send(ctx: ScenarioContext, params: Json, options: CallOptions): Promise<Answer> {
  return ctx.driver.call("SendMessage", params, options);
}

function expectFresh(answer: Answer, what: string): void {
  expect(!answer.error, `${what}: a success`, () => shown(answer));
  expect(
    answer.headers[REPLAYED] === undefined,
    `${what}: no Idempotent-Replayed header (absent, not "false")`,
    () => `Idempotent-Replayed: ${answer.headers[REPLAYED]}`,
  );
}

/** AC-1: the same status, the same bytes, `Idempotent-Replayed: true`. */
function expectReplay(first: Answer, again: Answer, what: string): void {
  expect(
    again.headers[REPLAYED] === "true",
    `${what}: Idempotent-Replayed: true`,
    () => `Idempotent-Replayed: ${again.headers[REPLAYED] ?? "(absent)"}; ${shown(again)}`,
  );
  expect(again.status === first.status, `${what}: status ${first.status}`, () => `status ${again.status}`);
  if (again.raw !== first.raw) {
    const at = [...again.raw].findIndex((char, index) => char !== first.raw[index]);
    expect(
      false,
      `${what}: the first answer byte for byte (${first.raw.length} characters)`,
      () =>
        `${again.raw.length} characters, first difference at ${at < 0 ? Math.min(first.raw.length, again.raw.length) : at}: ${brief(again.raw.slice(Math.max(0, at - 40), at + 80))} instead of ${brief(first.raw.slice(Math.max(0, at - 40), at + 80))}`,
    );
  }
}

async function expectOneTask(ctx: ScenarioContext, contextId: string): Promise<void> {
  const list = await ctx.driver.call("ListTasks", { contextId });
  expect(!list.error && list.result?.totalSize === 1, `one task in context ${contextId}`, () => shown(list));
}

/** A first send and its retry, the very same request twice. */
async function sendTwice(
  ctx: ScenarioContext,
  params: Json,
  extra: string[] = [],
): Promise<[Answer, Answer, CallOptions]> {
  const options = activated(extra);
  const first = await send(ctx, params, options);
  expectFresh(first, "the first send");
  const again = await send(ctx, params, options);
  return [first, again, options];
}

const ttlOf = (ctx: ScenarioContext): number => {
  const ttl = ctx.card.extension(IDEMPOTENCY)?.params?.ttl_seconds;
  return typeof ttl === "number" && ttl > 0 ? ttl : 86_400;
};

export const IDEM_SCENARIOS: Scenario[] = familyScenarios("IDEM", "one", [
  {
    id: "IDEM-AC-1",
    source: `${SPEC} §6 AC-1`,
    title: "a retried blocking send: the first answer byte for byte, Idempotent-Replayed, no second task",
    per: "each",
    async run(ctx) {
      const contextId = randomUUID();
      const [first, again] = await sendTwice(ctx, sendParams(envelope("exit-0"), { contextId }));
      expectReplay(first, again, "the retry");
      await expectOneTask(ctx, contextId);
    },
  },
  {
    id: "IDEM-AC-1-IMMEDIATE",
    source: `${SPEC} §6 AC-1 (every answer given: a returnImmediately send's)`,
    title: "a retried returnImmediately send replays its first answer, also after the task ended",
    async run(ctx) {
      const contextId = randomUUID();
      const params = sendParams(envelope("sleep-short"), { contextId, returnImmediately: true });
      const [first, again, options] = await sendTwice(ctx, params);
      expectReplay(first, again, "the retry while it runs");
      const task = taskOf(first.result);
      await waitEnded(ctx, task.id);
      expectReplay(first, await send(ctx, params, options), "the retry after it ended");
      await expectOneTask(ctx, contextId);
    },
  },
  {
    id: "IDEM-AC-1-ANSWER",
    source: `${SPEC} §6 AC-1 (every answer given: an answer to a prompt)`,
    title: "a retried answer to a prompt replays its first answer and writes nothing twice",
    async run(ctx) {
      const start = await send(ctx, sendParams(envelope("ask-linger", { input_mode: "text-line" })), activated([HITL]));
      const task = taskOf(start.result);
      try {
        expect(stateOf(task) === STATE.inputRequired, STATE.inputRequired, () => shown(start));
        const params = answerParams(task, promptOf(task).prompt_id, { text: "y" });
        const [first, again] = await sendTwice(ctx, params, [HITL]);
        expectReplay(first, again, "the retried answer");
        const done = await waitEnded(ctx, task.id);
        const reads = allOutput(done).split("received=").length - 1;
        expect(
          reads === 1,
          "the answer written to the command once",
          () => `${reads} reads: ${brief(allOutput(done))}`,
        );
      } finally {
        await cancelQuietly(ctx, task?.id);
      }
    },
  },
  {
    id: "IDEM-AC-2",
    source: `${SPEC} §6 AC-2`,
    title: "the same messageId with another body: 422, the two hashes, the kept entry unchanged",
    per: "each",
    async run(ctx) {
      const messageId = randomUUID();
      const options = activated();
      const original = sendParams(undefined, { messageId, text: "conformance original" });
      const first = await send(ctx, original, options);
      expectFresh(first, "the first send");
      const other = await send(ctx, sendParams(undefined, { messageId, text: "conformance changed" }), options);
      const error = other.error;
      expect(error !== undefined, `a refusal ${REUSED}`, () => shown(other));
      if (ctx.driver.binding !== "grpc") expect(other.status === 422, "HTTP 422", () => `HTTP ${other.status}`);
      const data = Array.isArray(error.data) ? undefined : error.data;
      const code = data?.code ?? error.reason;
      const hashes = data ?? error.infoMetadata ?? {};
      expect(code === REUSED, REUSED, () => shown(other));
      expect(
        typeof hashes.original_request_hash === "string" &&
          typeof hashes.submitted_request_hash === "string" &&
          hashes.original_request_hash !== hashes.submitted_request_hash,
        "original_request_hash ≠ submitted_request_hash",
        () => brief(hashes),
      );
      expectReplay(first, await send(ctx, original, options), "the original retried");
    },
  },
  {
    id: "IDEM-AC-3",
    source: `${SPEC} §6 AC-3 (ttl_seconds from the card's params)`,
    title: "after the TTL the same request is new: processed, no replay header",
    async run(ctx) {
      const ttl = ttlOf(ctx);
      if (ttl * 1000 + 1500 > ctx.maxWaitMs)
        throw new Skip(
          `the card's ttl_seconds is ${ttl}: longer than --max-wait (${Math.round(ctx.maxWaitMs / 1000)} s)`,
        );
      const params = sendParams(undefined, { text: "conformance ttl" });
      const options = activated();
      const first = await send(ctx, params, options);
      expectFresh(first, "the first send");
      await new Promise((resolve) => setTimeout(resolve, ttl * 1000 + 1000));
      const later = await send(ctx, params, options);
      expectFresh(later, "the send after the TTL");
      expect(
        taskOf(later.result)?.id !== taskOf(first.result)?.id,
        "a new task",
        () => `task ${taskOf(later.result)?.id} again`,
      );
    },
  },
  {
    id: "IDEM-AC-4",
    source: `${SPEC} §6 AC-4`,
    title: "the first answer survives a restart of the runtime, byte for byte",
    async run(ctx) {
      if (!ctx.restart) throw new Skip("needs --restart-command to restart the runtime");
      const contextId = randomUUID();
      const params = sendParams(envelope("exit-0"), { contextId });
      const options = activated();
      const first = await send(ctx, params, options);
      expectFresh(first, "the first send");
      await ctx.restart();
      expectReplay(first, await send(ctx, params, options), "the retry after the restart");
      await expectOneTask(ctx, contextId);
    },
  },
  {
    id: "IDEM-7.1",
    source: `${SPEC} §7.1 (messageId not UUID-shaped: MUST be refused, 400)`,
    title: "a messageId that is not a UUID is refused before anything runs",
    per: "each",
    async run(ctx) {
      const required = ctx.card.extension(IDEMPOTENCY)?.required === true;
      if (!required) throw new Skip("the card does not declare idempotency/v1 required");
      const contextId = randomUUID();
      const answer = await send(
        ctx,
        sendParams(envelope("exit-0"), { messageId: `conformance-not-a-uuid-${randomUUID().slice(0, 8)}`, contextId }),
        activated(),
      );
      const binding = ctx.driver.binding;
      // A fresh key each time: a refusal for reusing a key would be another rule.
      const refused =
        answer.error !== undefined &&
        answer.error.reason !== REUSED &&
        (binding === "rest"
          ? answer.status === 400
          : binding === "jsonrpc"
            ? answer.status === 400 || answer.error.code === -32602
            : answer.error.status === "INVALID_ARGUMENT");
      expect(
        refused,
        binding === "rest"
          ? "HTTP 400"
          : binding === "jsonrpc"
            ? "HTTP 400 or JSON-RPC -32602"
            : "gRPC INVALID_ARGUMENT",
        () => shown(answer),
      );
      const list = await ctx.driver.call("ListTasks", { contextId });
      expect(!list.error && list.result?.totalSize === 0, "no task", () => shown(list));
    },
  },
]);
