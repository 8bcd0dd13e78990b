// Both A2A operation families on one transport-free table, in front of the one service: 0.3 names with 0.3 shapes
// and 1.0 names with 1.0 shapes (CONTRACT 5.3, 7.1). Every binding calls it: JSON-RPC (stdio, HTTP) by method name,
// REST by route, gRPC by RPC. Each operation is one entry (src/operations/operation.ts): its names, whether it
// streams, whether it is a send that idempotency/v1 keeps, what it runs and how it is replayed in each family. The
// checks every request passes (version, required extensions, an empty messageId, idempotency/v1) are made here,
// once. An operation answers a value, a JsonText or a StreamReply, or rejects with a CoreError or an RpcFailure
// (src/operations/rpc-failure.ts); each binding frames those its own way.
import {
  agentCard03,
  agentCard10,
  DEFAULT_RUNTIME_CARD,
  extendedCard,
  type OperatorSetup,
  type RuntimeCard,
  stdioCard10,
} from "../a2a/card.js";
import { type CardSigner, signedCard } from "../a2a/card-signature.js";
import { getRequestOf } from "../a2a/decode.js";
import type { Idempotency } from "../a2a/idempotency.js";
import { idempotencyKey, refuseEmptyMessageId, refuseNonUuidMessageId } from "../a2a/idempotency-hash.js";
import type { DecodedSend, GetRequest, ListRequest, SendRequest, TaskOptions } from "../a2a/requests.js";
import type { A2aService } from "../a2a/service.js";
import {
  activatedExtensions,
  checkVersion,
  type Family,
  paramsServiceParameters,
  recognisedExtensions,
} from "../a2a/service-params.js";
import { type StopRule, type StreamItem, TaskStream } from "../a2a/task-stream.js";
import * as v03 from "../a2a/v0_3/codec.js";
import { decodeSend03, listRequest03 } from "../a2a/v0_3/decode.js";
import * as v10 from "../a2a/v1_0/codec.js";
import { decodeSend10, getRequest10, listRequest10 } from "../a2a/v1_0/decode.js";
import { encode03, encode10 } from "../a2a/wire/encode.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { isRecord } from "../core/envelope/json-value.js";
import { CoreError } from "../core/errors.js";
import { logField } from "../core/log-field.js";
import type { TaskView } from "../core/task/task-record.js";
import { IDEMPOTENCY_URI, RUNTIME_URI } from "../core/uris.js";
import type { CallContext } from "./context.js";
import { EndedTaskTexts } from "./ended-task-texts.js";
import { idempotentSend } from "./idempotent-send.js";
import type { Face, OperationEntry, OperationFacts, OperationKit, SendFace } from "./operation.js";
import { PUSH_OPERATIONS } from "./push-operations.js";
import { RpcFailure } from "./rpc-failure.js";

export type { CallContext } from "./context.js";

export interface OperationDeps {
  service: A2aService;
  version: string;
  log(line: string): void;
  /** The runtime's own extensions (CONTRACT 9): how the card declares them, and 9.5's refusals. */
  runtime?: RuntimeCard;
  /** Kept first answers of sends that activate idempotency/v1 (CONTRACT 9.1). */
  idempotency?: Idempotency;
  /** What GetExtendedAgentCard adds to the card (CONTRACT 8.2); without it, the extended card is not configured. */
  operator?: Omit<OperatorSetup, "containment">;
  /** Signs the 1.0 extended card (docs/reference.md, "Signed cards"). */
  signer?: CardSigner;
}

/** An item's number in its task (CONTRACT 9.4): a Task counts the events it includes. */
const eventNumberOf = (item: StreamItem): number => (item.type === "output" ? (item.event ?? 0) : item.task.lastEvent);

async function firstTask(stream: TaskStream): Promise<TaskView> {
  const first = await stream.next();
  return (first.value as { task: TaskView }).task;
}

/** The send with the extensions its headers activate, and who is told when it is accepted. */
function withHeaders(send: DecodedSend, context: CallContext): SendRequest {
  const request = send.request();
  const fromHeader = recognisedExtensions(context.headers?.extensions);
  const accepted = context.accepted ? { onAccepted: context.accepted } : {};
  if (fromHeader.length === 0) return { ...request, ...accepted };
  return { ...request, extensions: [...new Set([...request.extensions, ...fromHeader])], ...accepted };
}

const historyOf = (historyLength: number | undefined) => (historyLength === undefined ? {} : { historyLength });

/** A page of ListTasks / tasks/list in the family's task shape (CONTRACT 7.4). */
function listAnswer<T>(service: A2aService, request: ListRequest, taskOf: (task: TaskView, options: TaskOptions) => T) {
  const page = service.list(request);
  const options = historyOf(request.historyLength);
  return {
    tasks: page.items.map((task) => taskOf(task, options)),
    nextPageToken: page.nextPageToken,
    pageSize: request.query.pageSize,
    totalSize: page.totalSize,
  };
}

/** A task in the family's shape; an ended one's text is kept and given again (src/operations/ended-task-texts.ts). */
function taskAnswer<T>(
  { service, texts }: OperationKit,
  family: Family,
  { id, historyLength }: { id: string; historyLength?: number | undefined },
  taskOf: (task: TaskView, options: TaskOptions) => T,
) {
  return texts.answer(service.head(id), `${family} ${historyLength}`, () =>
    taskOf(service.get({ id }), historyOf(historyLength)),
  );
}

/**
 * Get params that are `{ "id": "<string>" }` and nothing else, as clients send them: what the decoder reads from them,
 * without running its schema (2 % of a GetTask over HTTP; docs/benchmarks.md). Undefined for any other params.
 */
export function idOnly(params: unknown): GetRequest | undefined {
  if (!isRecord(params) || typeof params.id !== "string") return undefined;
  let keys = 0;
  for (const key in params) if (Object.hasOwn(params, key)) keys++;
  return keys === 1 ? { id: params.id } : undefined;
}

const ended: StopRule = "ended";
const endedOrInput: StopRule = "ended-or-input";
/** A stream of a kept send's task, from its current state (CONTRACT 9.1). */
const keptStream = (kit: OperationKit, id: string, stop: StopRule) =>
  new TaskStream(kit.service.dispatcher, id, stop, { closingStatus: true });

/** Every operation, once: both families' faces of each. */
const OPERATIONS: readonly OperationEntry[] = [
  {
    send: true,
    "0.3": {
      name: "message/send",
      decode: decodeSend03,
      run: async ({ service }, send, context) => {
        const request = withHeaders(send, context);
        return v03.taskOf(await service.send(request), historyOf(request.historyLength));
      },
      replay: {
        task: ({ service }, id, send) => v03.taskOf(service.get({ id }), historyOf(send.request().historyLength)),
        stream: (kit, id) => kit.stream03(keptStream(kit, id, ended)),
      },
    },
    "1.0": {
      name: "SendMessage",
      decode: decodeSend10,
      run: async ({ service }, send, context) => {
        const request = withHeaders(send, context);
        return { task: v10.taskOf(await service.send(request), historyOf(request.historyLength)) };
      },
      replay: {
        task: ({ service }, id, send) => ({
          task: v10.taskOf(service.get({ id }), historyOf(send.request().historyLength)),
        }),
        stream: (kit, id) => kit.stream10(keptStream(kit, id, endedOrInput)),
      },
    },
  },
  {
    streaming: true,
    send: true,
    "0.3": {
      name: "message/stream",
      decode: decodeSend03,
      run: (kit, send, context) => kit.stream03(kit.service.stream(withHeaders(send, context), ended)),
      replay: { task: () => undefined, stream: (kit, id) => kit.stream03(keptStream(kit, id, ended)) },
    },
    "1.0": {
      name: "SendStreamingMessage",
      decode: decodeSend10,
      run: (kit, send, context) => kit.stream10(kit.service.stream(withHeaders(send, context), endedOrInput)),
      replay: { task: () => undefined, stream: (kit, id) => kit.stream10(keptStream(kit, id, endedOrInput)) },
    },
  },
  {
    "0.3": {
      name: "tasks/get",
      run: (kit, params) => taskAnswer(kit, "0.3", idOnly(params) ?? getRequestOf(params), v03.taskOf),
    },
    "1.0": {
      name: "GetTask",
      run: (kit, params) => taskAnswer(kit, "1.0", idOnly(params) ?? getRequest10(params), v10.taskOf),
    },
  },
  {
    "0.3": { name: "tasks/list", run: ({ service }, params) => listAnswer(service, listRequest03(params), v03.taskOf) },
    "1.0": { name: "ListTasks", run: ({ service }, params) => listAnswer(service, listRequest10(params), v10.taskOf) },
  },
  {
    "0.3": {
      name: "tasks/cancel",
      run: async ({ service }, params) => v03.taskOf(await service.cancel(getRequestOf(params).id)),
    },
    "1.0": {
      name: "CancelTask",
      run: async ({ service }, params) => v10.taskOf(await service.cancel(getRequest10(params).id)),
    },
  },
  {
    streaming: true,
    "0.3": {
      name: "tasks/resubscribe",
      run: (kit, params) => kit.stream03(kit.service.subscribe(getRequestOf(params).id, ended, false)),
    },
    // Follows the task through its prompts and answers, to its end (A2A 1.0 §3.1.6, CONTRACT 7.3).
    "1.0": {
      name: "SubscribeToTask",
      run: (kit, params) => kit.stream10(kit.service.subscribe(getRequest10(params).id, ended, true), true),
    },
  },
  {
    // The 1.0 public card is served at /.well-known/agent-card.json, not as an operation.
    "0.3": {
      name: "agent/getCard",
      run: (kit) => agentCard03(kit.version, kit.service.dispatcher.instanceId, undefined, kit.runtimeCard),
    },
  },
  {
    "0.3": {
      name: "agent/getAuthenticatedExtendedCard",
      run: (kit, _params, context) =>
        kit.extended(
          agentCard03(
            kit.version,
            kit.service.dispatcher.instanceId,
            context.base && `${context.base}/a2a/jsonrpc`,
            kit.runtimeCard,
          ),
        ),
    },
    "1.0": {
      name: "GetExtendedAgentCard",
      run: (kit, _params, context) => {
        const instanceId = kit.service.dispatcher.instanceId;
        const card =
          context.base === undefined
            ? stdioCard10(kit.version, instanceId, kit.runtimeCard)
            : agentCard10(kit.version, instanceId, context.base, kit.runtimeCard);
        return signedCard(kit.signer, kit.extended(card), context.base);
      },
    },
  },
  ...PUSH_OPERATIONS,
];

/** Each name's operation and family. */
const BY_NAME = new Map<string, { facts: OperationFacts; face: Face | SendFace }>();
for (const entry of OPERATIONS) {
  const hashName = entry["1.0"]?.name ?? entry["0.3"]?.name ?? "";
  for (const family of ["0.3", "1.0"] as const) {
    const face = entry[family];
    if (!face) continue;
    const facts = { name: face.name, family, streaming: entry.streaming === true, send: entry.send === true, hashName };
    BY_NAME.set(face.name, { facts, face });
  }
}

/** What is known of the operation of a name without running it, or undefined when there is no such operation. */
export const factsOf = (name: string): OperationFacts | undefined => BY_NAME.get(name)?.facts;

/**
 * The family whose shapes answer a request for `method`: its operation's, else (a method that is no operation, or
 * none) 0.3 for a name with a slash and 1.0 for anything else.
 */
export const familyOfMethod = (method: string | undefined): Family =>
  (method === undefined ? undefined : factsOf(method)?.family) ?? (method?.includes("/") ? "0.3" : "1.0");

/** One operation of the table, ready to run. */
export interface Operation extends OperationFacts {
  /** Runs it: its answer, or it rejects with a CoreError or an RpcFailure. */
  call(params: unknown, context: CallContext): Promise<unknown>;
}

export interface Operations {
  /** Every operation of both families. */
  readonly all: readonly Operation[];
  /** The operation of a name, or undefined when there is none. */
  get(name: string): Operation | undefined;
}

/**
 * With --require-extensions (CONTRACT 9.5): every operation needs RUNTIME activated, the sends IDEMPOTENCY too; the
 * card needs nothing.
 */
function requireExtensions(facts: OperationFacts, activated: readonly string[]): void {
  if (facts.name === "agent/getCard") return;
  const needed = facts.send ? [RUNTIME_URI, IDEMPOTENCY_URI] : [RUNTIME_URI];
  const missing = needed.filter((uri) => !activated.includes(uri));
  if (missing.length === 0) return;
  throw new CoreError(
    "extension_support_required",
    `this runtime requires the extensions ${missing.join(", ")}; activate them with A2A-Extensions`,
    { missing_extensions: missing.join(",") },
  );
}

export function createOperations(deps: OperationDeps): Operations {
  const { service } = deps;
  const dispatcher = service.dispatcher;
  const kit: OperationKit = {
    service,
    texts: new EndedTaskTexts(),
    version: deps.version,
    runtimeCard: deps.runtime ?? DEFAULT_RUNTIME_CARD,
    signer: deps.signer,
    stream03: async (stream) => {
      const opened = await stream;
      const task = await firstTask(opened);
      return new StreamReply(task.id, v03.taskOf(task), opened, encode03, "0.3");
    },
    stream10: async (stream, subscription = false) => {
      const opened = await stream;
      const task = await firstTask(opened);
      const numbers = { first: task.lastEvent, of: eventNumberOf };
      return new StreamReply(task.id, { task: v10.taskOf(task) }, opened, encode10, "1.0", numbers, subscription);
    },
    extended: (card) => {
      if (!deps.operator) throw new CoreError("extended_card_not_configured", "no extended agent card is configured");
      return extendedCard(card as Parameters<typeof extendedCard>[0], {
        ...deps.operator,
        containment: dispatcher.containmentKind,
      }) as typeof card;
    },
  };

  /** A rejection as the operation's failure: a CoreError or an RpcFailure; anything else is logged, and internal. */
  const failureOf = (facts: OperationFacts, error: unknown): CoreError | RpcFailure => {
    if (error instanceof CoreError || error instanceof RpcFailure) return error;
    deps.log(`internal error in ${facts.name}: ${(error as Error)?.stack ?? error}`);
    return RpcFailure.internal(facts.family);
  };

  const operationOf = ({ facts, face }: { facts: OperationFacts; face: Face | SendFace }): Operation => ({
    ...facts,
    call: async (params, context) => {
      try {
        checkVersion(context.headers?.version ?? paramsServiceParameters(params).version, facts.family);
        const activated = [...recognisedExtensions(context.headers?.extensions), ...activatedExtensions(params)];
        if (deps.runtime?.requireExtensions) requireExtensions(facts, activated);
        if (facts.send) refuseEmptyMessageId(params);
        if (facts.send && deps.runtime?.requireExtensions) refuseNonUuidMessageId(params);
        // A send is decoded once: its request hash and its run read the same decoded send.
        const send = "decode" in face ? face.decode(params) : undefined;
        const run = async (callContext = context) => {
          try {
            return await (send && "decode" in face
              ? face.run(kit, send, callContext)
              : (face as Face).run(kit, params, callContext));
          } catch (error) {
            throw failureOf(facts, error);
          }
        };
        const key = send ? idempotencyKey(params) : undefined;
        let result: unknown;
        if (deps.idempotency && send && "replay" in face && key !== undefined && activated.includes(IDEMPOTENCY_URI)) {
          const once = idempotentSend({ facts, replay: face.replay, kit, key, send, run, context, log: deps.log });
          result = (await deps.idempotency.call(once)).value;
        } else result = await run();
        if (result instanceof StreamReply && context.notification) result.close();
        return result;
      } catch (error) {
        throw failureOf(facts, error);
      }
    },
  });

  const byName = new Map([...BY_NAME].map(([name, described]) => [name, operationOf(described)]));
  return { all: [...byName.values()], get: (name) => byName.get(name) };
}

/** The operation of a name that a binding knows to exist (a REST route's, a gRPC RPC's). */
export function operationNamed(operations: Operations, name: string): Operation {
  const operation = operations.get(name);
  if (!operation) throw new CoreError("invalid_params", `no such operation: ${logField(name)}`);
  return operation;
}
