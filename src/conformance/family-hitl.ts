// HITL-*: hitl-prompt/v1's own conformance list (CF-1..CF-6) on adapter commands in text-line mode, and the
// seed's rules for text-line answers (adapter-command/v1 seed, "Optional text input").
import type { Answer, Binding, Json } from "./driver.js";
import { brief } from "./http.js";
import { answerParams, cancelQuietly, envelope, HITL_ON, sendParams, shown, waitEnded, waitFor } from "./messages.js";
import { expect, familyScenarios, Mismatch, type Scenario, type ScenarioContext } from "./scenario.js";
import { allOutput, promptOf, STATE, stateOf, taskOf } from "./task-fields.js";
import { UUID } from "./uris.js";
import type { RequestName } from "./workspace.js";

const HITL_SPEC = "hitl-prompt/v1 Conformance";
const SEED = 'adapter-command/v1 seed "Optional text input"';

interface Prompted {
  task: Json;
  prompt: Json;
}

/** A text-line adapter command that asks: the blocking send answers once it waits at its prompt. */
async function prompted(ctx: ScenarioContext, request: RequestName = "ask"): Promise<Prompted> {
  const answer = await ctx.driver.call(
    "SendMessage",
    sendParams(envelope(request, { input_mode: "text-line" })),
    HITL_ON,
  );
  const task = answer.error ? undefined : taskOf(answer.result);
  if (task?.id !== undefined && stateOf(task) !== STATE.inputRequired) await cancelQuietly(ctx, task.id);
  expect(
    stateOf(task) === STATE.inputRequired && typeof promptOf(task) === "object",
    `${STATE.inputRequired} with a hitl-prompt/v1 envelope in status.message.metadata`,
    () => shown(answer),
  );
  return { task, prompt: promptOf(task) };
}

function reply(
  ctx: ScenarioContext,
  { task }: Prompted,
  promptId: string,
  payload: Json,
  returnImmediately = false,
): Promise<Answer> {
  return ctx.driver.call("SendMessage", answerParams(task, promptId, payload, { returnImmediately }), HITL_ON);
}

type HitlRefusal = "answered" | "invalid";
/** hitl-prompt/v1: 409 / -32010 for an answered or unknown prompt, 422 / -32011 for an invalid payload. */
const REFUSALS: Record<HitlRefusal, { http: number; code: number; grpc: string; words: string }> = {
  answered: { http: 409, code: -32010, grpc: "ABORTED", words: "hitl_already_answered_or_unknown" },
  invalid: { http: 422, code: -32011, grpc: "INVALID_ARGUMENT", words: "hitl_response_invalid" },
};

function expectRefusal(binding: Binding, answer: Answer, kind: HitlRefusal): void {
  const refusal = REFUSALS[kind];
  const expected =
    binding === "jsonrpc"
      ? `JSON-RPC error ${refusal.code} ${refusal.words}`
      : binding === "rest"
        ? `HTTP ${refusal.http} ${refusal.words}`
        : `gRPC ${refusal.grpc} ${refusal.words}`;
  const error = answer.error;
  const holds =
    error !== undefined &&
    (binding === "jsonrpc"
      ? error.code === refusal.code
      : binding === "rest"
        ? error.httpStatus === refusal.http
        : error.status === refusal.grpc);
  expect(holds, expected, () => shown(answer));
}

/** `validation_errors` (the 0.3 `data` object of the spec's example) or the 1.0 BadRequest field violations. */
function validationErrorsOf(answer: Answer): unknown[] {
  const data = answer.error?.data;
  if (Array.isArray(data?.validation_errors)) return data.validation_errors;
  const nested = Array.isArray(data)
    ? data.find((detail: Json) => Array.isArray(detail?.validation_errors))
    : undefined;
  return nested?.validation_errors ?? answer.error?.fieldViolations ?? [];
}

async function expectStillPrompting(ctx: ScenarioContext, p: Prompted): Promise<void> {
  const now = await ctx.driver.call("GetTask", { id: p.task.id });
  expect(
    stateOf(now.result) === STATE.inputRequired && promptOf(now.result)?.prompt_id === p.prompt.prompt_id,
    `still ${STATE.inputRequired} with prompt ${p.prompt.prompt_id}`,
    () => shown(now),
  );
}

async function expectAccepted(ctx: ScenarioContext, p: Prompted, text: string): Promise<Json> {
  const answer = await reply(ctx, p, p.prompt.prompt_id, { text });
  expect(!answer.error, "the answer accepted", () => shown(answer));
  return taskOf(answer.result);
}

/** A check on a task of `request` waiting at its prompt; the task is canceled whatever happens. */
function withPrompt(
  request: RequestName,
  body: (ctx: ScenarioContext, p: Prompted) => Promise<void>,
): (ctx: ScenarioContext) => Promise<void> {
  return async (ctx) => {
    const p = await prompted(ctx, request);
    try {
      await body(ctx, p);
    } finally {
      await cancelQuietly(ctx, p.task.id);
    }
  };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const PROMPT_KEYS = new Set(["prompt_id", "prompt", "response_schema", "deadline", "allowed_responders"]);

/** The 95th percentile (nearest rank) of `values`. */
export function p95(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.95) - 1)] ?? Number.NaN;
}

const CF4_TRIALS = 20;

export const HITL_SCENARIOS: Scenario[] = familyScenarios("HITL", "one", [
  {
    id: "HITL-CF-1",
    source: `${HITL_SPEC} CF-1`,
    title: "prompt_id is a UUID; an answer resumes the task; a second answer is refused 409 / -32010",
    run: withPrompt("ask", async (ctx, p) => {
      expect(UUID.test(String(p.prompt.prompt_id)), "prompt_id a UUID", () => brief(p.prompt.prompt_id));
      const after = await expectAccepted(ctx, p, "y");
      expect(
        stateOf(after) !== STATE.inputRequired || promptOf(after)?.prompt_id !== p.prompt.prompt_id,
        "the task resumed",
        () => brief(after),
      );
      expectRefusal(ctx.driver.binding, await reply(ctx, p, p.prompt.prompt_id, { text: "y" }), "answered");
    }),
  },
  {
    id: "HITL-CF-2",
    source: `${HITL_SPEC} CF-2`,
    title: "a valid payload is accepted and the task leaves INPUT_REQUIRED",
    run: withPrompt("ask", async (ctx, p) => {
      const answer = await reply(ctx, p, p.prompt.prompt_id, { text: "y" }, true);
      expect(!answer.error, "the answer accepted (200 or a JSON-RPC success)", () => shown(answer));
      const done = await waitEnded(ctx, p.task.id);
      expect(stateOf(done) === STATE.completed, STATE.completed, () => stateOf(done));
    }),
  },
  {
    id: "HITL-CF-3",
    source: `${HITL_SPEC} CF-3; hitl-prompt/v1 examples/invalid-response-422.json`,
    title: "an invalid payload is refused 422 / -32011 with validation errors; the prompt stays; a valid one follows",
    run: withPrompt("ask", async (ctx, p) => {
      for (const payload of [{ text: 5 }, {}, { text: "y", extra: true }]) {
        const answer = await reply(ctx, p, p.prompt.prompt_id, payload);
        expectRefusal(ctx.driver.binding, answer, "invalid");
        expect(validationErrorsOf(answer).length > 0, "validation_errors (path, keyword, message)", () =>
          shown(answer),
        );
        await expectStillPrompting(ctx, p);
      }
      const after = await expectAccepted(ctx, p, "y");
      expect(stateOf(after) !== STATE.inputRequired, "the task resumed", () => brief(after));
    }),
  },
  {
    id: "HITL-CF-4",
    source: `${HITL_SPEC} CF-4`,
    title: `resume latency p95 ≤ 1000 ms over ${CF4_TRIALS} answers`,
    run: withPrompt("ask-loop", async (ctx, p) => {
      const latencies: number[] = [];
      let prompt = p.prompt;
      for (let trial = 0; trial < CF4_TRIALS; trial++) {
        const started = performance.now();
        const answer = await reply(ctx, p, prompt.prompt_id, { text: "y" }, true);
        expect(!answer.error, `answer ${trial + 1} accepted`, () => shown(answer));
        const left = (task: Json) =>
          stateOf(task) !== STATE.inputRequired || promptOf(task)?.prompt_id !== prompt.prompt_id;
        if (!left(taskOf(answer.result))) await waitFor(ctx, p.task.id, left, "the task leaving INPUT_REQUIRED");
        latencies.push(performance.now() - started);
        const next = await waitFor(
          ctx,
          p.task.id,
          (task) => stateOf(task) === STATE.inputRequired && promptOf(task)?.prompt_id !== prompt.prompt_id,
          `prompt ${trial + 2}`,
        );
        prompt = promptOf(next);
      }
      const value = p95(latencies);
      expect(
        value <= 1000,
        "p95 ≤ 1000 ms",
        () => `p95 ${Math.round(value)} ms (max ${Math.round(Math.max(...latencies))} ms)`,
      );
    }),
  },
  {
    id: "HITL-CF-5",
    source: `${HITL_SPEC} CF-5; hitl-prompt/v1 envelope.schema.json`,
    title: "the prompt envelope assumes no UI: only its schema's keys, plain text, an object schema",
    run: withPrompt("ask", async (_ctx, { prompt }) => {
      const extra = Object.keys(prompt).filter((key) => !PROMPT_KEYS.has(key));
      expect(
        extra.length === 0,
        "only prompt_id, prompt, response_schema, deadline, allowed_responders",
        () => `also ${extra.join(", ")}`,
      );
      expect(
        typeof prompt.prompt === "string" &&
          prompt.prompt.length >= 1 &&
          prompt.prompt.length <= 4096 &&
          !CONTROL.test(prompt.prompt),
        "prompt plain text of 1..4096 characters, no control characters",
        () => brief(prompt.prompt),
      );
      expect(
        prompt.response_schema?.type === "object" && JSON.stringify(prompt.response_schema).length <= 64 * 1024,
        "response_schema an object schema (type object) of at most 64 KiB",
        () => brief(prompt.response_schema),
      );
      if (prompt.allowed_responders !== undefined)
        expect(
          Array.isArray(prompt.allowed_responders) &&
            prompt.allowed_responders.every((r: unknown) => /^(any|specific:\S+|consensus:[1-9]\d*)$/.test(String(r))),
          "allowed_responders any, specific:<id> or consensus:N",
          () => brief(prompt.allowed_responders),
        );
    }),
  },
  {
    id: "HITL-CF-6",
    source: `${HITL_SPEC} CF-6`,
    title: "after a disconnect, the replayed prompt has the same prompt_id and response_schema",
    run: withPrompt("ask", async (ctx, p) => {
      for (let attempt = 1; attempt <= 2; attempt++) {
        const stream = await ctx.driver.stream(
          "SubscribeToTask",
          { id: p.task.id },
          { until: (items) => items.length >= 1 },
        );
        const replayed = promptOf(stream.items[0]?.task);
        expect(
          replayed?.prompt_id === p.prompt.prompt_id &&
            JSON.stringify(replayed?.response_schema) === JSON.stringify(p.prompt.response_schema),
          `subscription ${attempt}: prompt ${p.prompt.prompt_id} with the same response_schema`,
          () => (stream.error ? `error ${brief(stream.error)}` : brief(stream.items[0])),
        );
      }
    }),
  },
  {
    id: "HITL-TEXT-NEWLINE",
    source: `${SEED}: "The runtime appends one newline"`,
    title: "the command reads the text and exactly one newline",
    run: withPrompt("ask-linger", async (ctx, p) => {
      await expectAccepted(ctx, p, "conformance answer");
      const done = await waitEnded(ctx, p.task.id);
      const line = `received=${JSON.stringify("conformance answer\n")}`;
      expect(allOutput(done).includes(line), line, () => brief(allOutput(done)));
    }),
  },
  {
    id: "HITL-TEXT-LIMIT",
    source: `${SEED}: "text is limited to 4096 bytes"`,
    title: "4097 bytes (or 2049 two-byte characters) refused, the prompt kept; 4096 bytes accepted",
    run: withPrompt("ask", async (ctx, p) => {
      for (const text of ["a".repeat(4097), "é".repeat(2049)]) {
        expectRefusal(ctx.driver.binding, await reply(ctx, p, p.prompt.prompt_id, { text }), "invalid");
        await expectStillPrompting(ctx, p);
      }
      await expectAccepted(ctx, p, "a".repeat(4096));
    }),
  },
  {
    id: "HITL-TEXT-CONTROL",
    source: `${SEED}: "cannot contain control characters"`,
    title: "a text with a control character is refused, the prompt kept",
    run: withPrompt("ask", async (ctx, p) => {
      for (const text of ["a\u0007b", "two\nlines", "\u001b[31mred", "a\u0085b"]) {
        expectRefusal(ctx.driver.binding, await reply(ctx, p, p.prompt.prompt_id, { text }), "invalid");
        await expectStillPrompting(ctx, p);
      }
      await expectAccepted(ctx, p, "y");
    }),
  },
  {
    id: "HITL-TEXT-NEW-ID",
    source: `${SEED}: "A later prompt receives a new ID"`,
    title: "the command's second prompt has another prompt_id",
    run: withPrompt("ask-twice", async (ctx, p) => {
      const after = await expectAccepted(ctx, p, "y");
      const second =
        stateOf(after) === STATE.inputRequired && promptOf(after)?.prompt_id !== p.prompt.prompt_id
          ? after
          : await waitFor(
              ctx,
              p.task.id,
              (task) => stateOf(task) === STATE.inputRequired && promptOf(task)?.prompt_id !== p.prompt.prompt_id,
              "a second prompt",
            );
      const id = promptOf(second)?.prompt_id;
      expect(UUID.test(String(id)) && id !== p.prompt.prompt_id, `a new UUID, not ${p.prompt.prompt_id}`, () =>
        brief(id),
      );
    }),
  },
  {
    id: "HITL-TEXT-STALE",
    source: `${SEED}: "Duplicate or stale replies are rejected"`,
    title: "an answer to the first prompt, once the second is open, is refused 409 / -32010",
    run: withPrompt("ask-twice", async (ctx, p) => {
      await expectAccepted(ctx, p, "y");
      const second = await waitFor(
        ctx,
        p.task.id,
        (task) => stateOf(task) === STATE.inputRequired && promptOf(task)?.prompt_id !== p.prompt.prompt_id,
        "a second prompt",
      );
      expectRefusal(ctx.driver.binding, await reply(ctx, p, p.prompt.prompt_id, { text: "y" }), "answered");
      expect(promptOf(second) !== undefined, "the second prompt open", () => brief(second));
      const now = await ctx.driver.call("GetTask", { id: p.task.id });
      expect(promptOf(now.result)?.prompt_id === promptOf(second).prompt_id, "the second prompt still open", () =>
        shown(now),
      );
    }),
  },
  {
    id: "HITL-TEXT-OPT-IN",
    source: `${SEED}: "Without this field, output is never treated as an input request"`,
    title: "without input_mode a [y/N] line is output, not a prompt",
    async run(ctx) {
      const answer = await ctx.driver.call(
        "SendMessage",
        sendParams(envelope("ask", { timeout_seconds: 10 })),
        HITL_ON,
      );
      const task = answer.error ? undefined : taskOf(answer.result);
      try {
        expect(task?.id !== undefined, "a task", () => shown(answer));
        if (stateOf(task) === STATE.inputRequired) throw new Mismatch("never INPUT_REQUIRED", brief(task));
      } finally {
        await cancelQuietly(ctx, task?.id);
      }
    },
  },
]);
