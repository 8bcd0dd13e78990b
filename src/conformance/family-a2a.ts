// A2A-*: what a stand-in must get right of A2A 1.0.1 for the operations it serves, on every binding (the card, the
// shapes and states of send, stream, get, list, cancel and subscribe, the §5.4 error table, event order).
import { randomUUID } from "node:crypto";
import { verifyAgentCardSignature } from "@a2a-js/sdk";
import type { Json, StreamAnswer } from "./driver.js";
import { A2A_ERRORS, refusedWith } from "./errors.js";
import { brief, request } from "./http.js";
import { cancelQuietly, envelope, sendOk, sendParams, shown } from "./messages.js";
import { expect, familyScenarios, type Scenario, type ScenarioContext, Skip } from "./scenario.js";
import { ENDED, STATE, stateOf } from "./task-fields.js";

const STATES = new Set([...Object.values(STATE), "TASK_STATE_AUTH_REQUIRED"]);
const isText = (value: unknown) => typeof value === "string" && value !== "";
const isTextList = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === "string");

/** The fields A2A 1.0.1's a2a.proto marks REQUIRED on AgentCard and what it holds, that are missing or wrong. */
export function cardShapeProblems(card: Json): string[] {
  const problems: string[] = [];
  for (const field of ["name", "description", "version"]) if (!isText(card[field])) problems.push(`${field} a string`);
  if (!Array.isArray(card.supportedInterfaces) || card.supportedInterfaces.length === 0)
    problems.push("supportedInterfaces a non-empty list");
  else
    card.supportedInterfaces.forEach((entry: Json, index: number) => {
      for (const field of ["url", "protocolBinding", "protocolVersion"])
        if (!isText(entry?.[field])) problems.push(`supportedInterfaces[${index}].${field} a string`);
    });
  if (typeof card.capabilities !== "object" || card.capabilities === null) problems.push("capabilities an object");
  for (const field of ["defaultInputModes", "defaultOutputModes"])
    if (!isTextList(card[field])) problems.push(`${field} a list of strings`);
  if (!Array.isArray(card.skills)) problems.push("skills a list");
  else
    card.skills.forEach((skill: Json, index: number) => {
      for (const field of ["id", "name", "description"])
        if (!isText(skill?.[field])) problems.push(`skills[${index}].${field} a string`);
      if (!isTextList(skill?.tags)) problems.push(`skills[${index}].tags a list of strings`);
    });
  return problems;
}

/** A Task as A2A 1.0.1 shapes it: id, contextId, a status whose state is a TaskState name. */
function expectTask(task: Json, what: string): void {
  expect(
    isText(task?.id) && isText(task?.contextId) && STATES.has(task?.status?.state),
    `${what}: a Task with id, contextId and status.state a TaskState name`,
    () => brief(task),
  );
}

/** Exactly one of the StreamResponse payloads (a2a.proto `oneof payload`). */
const payloadOf = (item: Json): string[] =>
  ["task", "message", "statusUpdate", "artifactUpdate"].filter(
    (name) => item?.[name] !== undefined && item?.[name] !== null,
  );

function expectStreamShape(stream: StreamAnswer, taskId?: string): Json[] {
  expect(!stream.error, "a stream without an error", () => `error ${brief(stream.error)}`);
  expect(stream.items.length > 0 && payloadOf(stream.items[0]).join() === "task", "the Task as the first item", () =>
    brief(stream.items[0]),
  );
  const id = taskId ?? stream.items[0].task.id;
  stream.items.forEach((item, index) => {
    const names = payloadOf(item);
    expect(names.length === 1, `item ${index}: exactly one of task, message, statusUpdate, artifactUpdate`, () =>
      brief(item),
    );
    const event = item.statusUpdate ?? item.artifactUpdate;
    if (event) expect(event.taskId === id, `item ${index}: an event of task ${id}`, () => brief(item));
  });
  const last = stream.items.at(-1);
  const lastState = last?.statusUpdate?.status?.state ?? last?.task?.status?.state;
  expect(ENDED.has(lastState), "the stream to end with the task in a terminal state", () => brief(last));
  return stream.items;
}

async function echoTask(ctx: ScenarioContext, contextId?: string): Promise<Json> {
  return sendOk(ctx, sendParams(undefined, { text: "conformance echo", ...(contextId ? { contextId } : {}) }));
}

/** A check on a running task of `request`; the task is canceled whatever happens. */
function withRunningTask(
  request: "sleep" | "sleep-short",
  body: (ctx: ScenarioContext, task: Json) => Promise<void>,
): (ctx: ScenarioContext) => Promise<void> {
  return async (ctx) => {
    const task = await sendOk(ctx, sendParams(envelope(request), { returnImmediately: true }));
    try {
      await body(ctx, task);
    } finally {
      await cancelQuietly(ctx, task.id);
    }
  };
}

export const A2A_SCENARIOS: Scenario[] = familyScenarios("A2A", "each", [
  {
    id: "A2A-CARD-SHAPE",
    source: "A2A 1.0.1 a2a.proto AgentCard, AgentInterface, AgentSkill (REQUIRED fields)",
    title: "the card has every required field",
    per: "one",
    async run(ctx) {
      const problems = cardShapeProblems(ctx.card.card);
      expect(
        problems.length === 0,
        "every REQUIRED field of AgentCard",
        () => `missing or wrong: ${problems.join("; ")}`,
      );
    },
  },
  {
    id: "A2A-CARD-INTERFACES",
    source: "A2A 1.0.1 §5 (protocol bindings), a2a.proto AgentInterface",
    title: "each interface names a known binding, a URL and a Major.Minor version",
    per: "one",
    async run(ctx) {
      for (const entry of ctx.card.card.supportedInterfaces as Json[]) {
        const binding = entry.protocolBinding;
        const urlOk =
          binding === "GRPC"
            ? /^[^\s/]+:\d+$/.test(String(entry.url).replace(/^grpcs?:\/\//, ""))
            : URL.canParse(entry.url);
        expect(
          ["JSONRPC", "HTTP+JSON", "GRPC"].includes(binding) && urlOk && /^\d+\.\d+$/.test(entry.protocolVersion),
          "protocolBinding JSONRPC, HTTP+JSON or GRPC, an absolute URL (host:port for GRPC), protocolVersion Major.Minor",
          () => brief(entry),
        );
      }
    },
  },
  {
    id: "A2A-CARD-SIGNATURE",
    source: "A2A 1.0.1 §8.4 (AgentCardSignature: JWS over the §8.4.1 canonical card)",
    title: "the card's signature verifies against the server's JWKS",
    per: "one",
    async run(ctx) {
      const signatures = ctx.card.card.signatures;
      if (!Array.isArray(signatures) || signatures.length === 0) throw new Skip("the card is not signed");
      const jwksUrl = `${ctx.server.replace(/\/+$/, "")}/.well-known/jwks.json`;
      const answer = await request(jwksUrl, { headers: { Accept: "application/json" } }, 10_000);
      expect(answer.status === 200, `the key set at ${jwksUrl}`, () => `HTTP ${answer.status}`);
      const jwks = JSON.parse(answer.text) as { keys?: Json[] };
      // The verifier says on console.debug why each signature it tried did not verify; the report says it instead.
      const debug = console.debug;
      console.debug = () => {};
      try {
        // The key comes from the server's own key set; a `jku` naming another place is not followed.
        await verifyAgentCardSignature(async (kid) => {
          const key = Array.isArray(jwks.keys) ? jwks.keys.find((entry) => entry?.kid === kid) : undefined;
          if (!key) throw new Error(`no key "${kid}" in ${jwksUrl}`);
          return key;
        })(ctx.card.card);
      } catch (error) {
        expect(false, "a signature that verifies with a key of the server's JWKS", () => (error as Error).message);
      } finally {
        console.debug = debug;
      }
    },
  },
  {
    id: "A2A-SEND",
    source: "A2A 1.0.1 §3.1.1 SendMessage, §3.2.2 (blocking)",
    title: "a blocking send answers a Task in a terminal or interrupted state",
    async run(ctx) {
      const answer = await ctx.driver.call("SendMessage", sendParams(undefined, { text: "conformance send" }));
      expect(!answer.error && answer.result?.task !== undefined, "{ task }", () => shown(answer));
      expectTask(answer.result.task, "SendMessage");
      const state = stateOf(answer.result.task);
      expect(ENDED.has(state) || state === STATE.inputRequired, "a terminal or interrupted state", () => state);
    },
  },
  {
    id: "A2A-GET",
    source: "A2A 1.0.1 §3.1.3 GetTask",
    title: "GetTask answers the task that was sent",
    async run(ctx) {
      const sent = await echoTask(ctx);
      const answer = await ctx.driver.call("GetTask", { id: sent.id });
      expect(!answer.error, "the task", () => shown(answer));
      expectTask(answer.result, "GetTask");
      expect(
        answer.result.id === sent.id &&
          answer.result.contextId === sent.contextId &&
          stateOf(answer.result) === stateOf(sent),
        `task ${sent.id} in context ${sent.contextId}, ${stateOf(sent)}`,
        () => brief(answer.result),
      );
    },
  },
  {
    id: "A2A-LIST",
    source: "A2A 1.0.1 §3.1.4 ListTasks, a2a.proto ListTasksResponse",
    title: "ListTasks filtered by context finds the task, with its paging fields",
    async run(ctx) {
      const contextId = randomUUID();
      const sent = await echoTask(ctx, contextId);
      const answer = await ctx.driver.call("ListTasks", { contextId });
      expect(!answer.error, "a list", () => shown(answer));
      const list = answer.result;
      expect(
        Array.isArray(list?.tasks) &&
          typeof list.nextPageToken === "string" &&
          Number.isInteger(list.pageSize) &&
          Number.isInteger(list.totalSize),
        "tasks, nextPageToken, pageSize and totalSize",
        () => brief(list),
      );
      expect(
        list.tasks.length === 1 && list.tasks[0].id === sent.id && list.totalSize === 1,
        `exactly task ${sent.id} in context ${contextId}`,
        () => brief(list.tasks.map((task: Json) => task?.id)),
      );
    },
  },
  {
    id: "A2A-CANCEL",
    source: "A2A 1.0.1 §3.1.5 CancelTask",
    title: "a running task is canceled",
    run: withRunningTask("sleep", async (ctx, task) => {
      const answer = await ctx.driver.call("CancelTask", { id: task.id });
      expect(!answer.error, "the task", () => shown(answer));
      expectTask(answer.result, "CancelTask");
      expect(stateOf(answer.result) === STATE.canceled, STATE.canceled, () => stateOf(answer.result));
    }),
  },
  {
    id: "A2A-STREAM",
    source: "A2A 1.0.1 §3.1.2 SendStreamingMessage, a2a.proto StreamResponse",
    title: "a streamed send: the Task first, its events, the terminal state last",
    async run(ctx) {
      const stream = await ctx.driver.stream(
        "SendStreamingMessage",
        sendParams(undefined, { text: "conformance stream" }),
      );
      expectStreamShape(stream);
    },
  },
  {
    id: "A2A-SUBSCRIBE",
    source: "A2A 1.0.1 §3.1.6 SubscribeToTask",
    title: "a subscription starts with the Task and ends with its terminal state",
    run: withRunningTask("sleep-short", async (ctx, task) => {
      const stream = await ctx.driver.stream("SubscribeToTask", { id: task.id });
      const items = expectStreamShape(stream, task.id);
      expect(items[0].task.id === task.id, `task ${task.id} first`, () => brief(items[0]));
      expect(stateOf(items.at(-1).statusUpdate ?? items.at(-1).task) === STATE.completed, STATE.completed, () =>
        brief(items.at(-1)),
      );
    }),
  },
  {
    id: "A2A-EVENT-ORDER",
    source: "A2A 1.0.1 §3.1.2, §4.1.3 (terminal states are final)",
    title: "output events come before the terminal status, nothing after it",
    async run(ctx) {
      const stream = await ctx.driver.stream("SendStreamingMessage", sendParams(envelope("streams")));
      const items = expectStreamShape(stream);
      const ended = items.findIndex((item) => ENDED.has(item.statusUpdate?.status?.state ?? ""));
      expect(
        ended === items.length - 1,
        "the terminal status as the last item",
        () => `item ${ended} of ${items.length}`,
      );
      const text = items
        .slice(0, ended)
        .flatMap(
          (item) =>
            item.artifactUpdate?.artifact?.parts ?? item.task?.artifacts?.flatMap((a: Json) => a.parts ?? []) ?? [],
        )
        .map((part: Json) => part?.text ?? "")
        .join("");
      expect(
        text.includes("conformance-stdout-marker") && text.includes("conformance-stderr-marker"),
        "both output markers in the items before the terminal status",
        () => brief(text),
      );
    },
  },
  {
    id: "A2A-ERR-TASK-NOT-FOUND",
    source: "A2A 1.0.1 §5.4 TaskNotFoundError",
    title: "GetTask of an unknown id",
    run: refusedWith(A2A_ERRORS.taskNotFound, (ctx) => ctx.driver.call("GetTask", { id: randomUUID() })),
  },
  {
    id: "A2A-ERR-NOT-CANCELABLE",
    source: "A2A 1.0.1 §3.1.5, §5.4 TaskNotCancelableError",
    title: "CancelTask of a completed task",
    run: refusedWith(A2A_ERRORS.taskNotCancelable, async (ctx) => {
      const task = await echoTask(ctx);
      expect(ENDED.has(stateOf(task)), "an ended echo task", () => stateOf(task));
      return ctx.driver.call("CancelTask", { id: task.id });
    }),
  },
  {
    id: "A2A-ERR-UNSUPPORTED",
    source: "A2A 1.0.1 §3.1.6 (a task in a terminal state), §5.4 UnsupportedOperationError",
    title: "SubscribeToTask of an ended task",
    run: refusedWith(A2A_ERRORS.unsupportedOperation, async (ctx) =>
      ctx.driver.stream("SubscribeToTask", { id: (await echoTask(ctx)).id }),
    ),
  },
  {
    id: "A2A-ERR-CONTENT-TYPE",
    source: "A2A 1.0.1 §5.4 ContentTypeNotSupportedError",
    title: "a part whose media type the card does not take",
    run: refusedWith(A2A_ERRORS.contentTypeNotSupported, (ctx) => {
      const modes: unknown[] = ctx.card.card.defaultInputModes ?? [];
      if (modes.includes("application/json") || modes.includes("*/*"))
        throw new Skip("the card takes application/json input, so no media type is known to be refused");
      const params = sendParams(undefined);
      params.message.parts = [{ data: { conformance: true }, mediaType: "application/json" }];
      return ctx.driver.call("SendMessage", params);
    }),
  },
  {
    id: "A2A-ERR-VERSION",
    source: "A2A 1.0.1 §3.6 (A2A-Version), §5.4 VersionNotSupportedError",
    title: "A2A-Version 99.0",
    run: refusedWith(A2A_ERRORS.versionNotSupported, (ctx) =>
      ctx.driver.call("GetTask", { id: randomUUID() }, { version: "99.0" }),
    ),
  },
]);
