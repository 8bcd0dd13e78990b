// Both A2A operation families on one transport-free table, in front of the one service: 0.3 names with 0.3 shapes
// and 1.0 names with 1.0 shapes (CONTRACT 5.3, 7.1). Every binding calls it: JSON-RPC (stdio, HTTP) by method name,
// REST by route, gRPC by RPC. The checks every request passes (version, required extensions, an empty messageId,
// idempotency/v1) are made here, once. An operation answers a value, a JsonText or a StreamReply, or rejects with a
// CoreError or an RpcFailure (src/operations/rpc-failure.ts); each binding frames those its own way.
import { MAX_ANSWER_BYTES } from "../a2a/answer-cache.js";
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
import type { Idempotency, IdempotentCall } from "../a2a/idempotency.js";
import {
  idempotencyKey,
  isUuid,
  refuseEmptyMessageId,
  refuseNonUuidMessageId,
  requestHash,
  SEND_METHOD_NAMES,
} from "../a2a/idempotency-hash.js";
import type { ListRequest, SendRequest, TaskOptions } from "../a2a/requests.js";
import type { RpcError } from "../a2a/rpc-codes.js";
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
import { listRequest03, sendRequestOf as send03 } from "../a2a/v0_3/decode.js";
import { rpcErrorOf as error03 } from "../a2a/v0_3/errors.js";
import * as v10 from "../a2a/v1_0/codec.js";
import { getRequest10, listRequest10, sendRequestOf as send10 } from "../a2a/v1_0/decode.js";
import { rpcErrorOf as error10 } from "../a2a/v1_0/errors.js";
import { encode03, encode10 } from "../a2a/wire/encode.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { isRecord } from "../core/envelope/json-value.js";
import { CoreError } from "../core/errors.js";
import { logField } from "../core/log-field.js";
import type { TaskView } from "../core/task/task-record.js";
import { IDEMPOTENCY_URI, RUNTIME_URI } from "../core/uris.js";
import type { CallContext } from "./context.js";
import { EndedTaskTexts } from "./ended-task-texts.js";
import { JsonText, valueJson } from "./json-text.js";
import { pushOperations03, pushOperations10 } from "./push-operations.js";
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

/** The operations that answer with a stream. */
export const STREAMING_OPERATIONS = new Set([
  "message/stream",
  "tasks/resubscribe",
  "SendStreamingMessage",
  "SubscribeToTask",
]);

type Operation = (params: unknown, context: CallContext) => unknown;

/** An item's number in its task (CONTRACT 9.4): a Task counts the events it includes. */
const eventNumberOf = (item: StreamItem): number => (item.type === "output" ? (item.event ?? 0) : item.task.lastEvent);

async function firstTask(stream: TaskStream): Promise<TaskView> {
  const first = await stream.next();
  return (first.value as { task: TaskView }).task;
}

/** The send with the extensions its headers activate, and who is told when it is accepted. */
function withHeaders(request: SendRequest, context: CallContext): SendRequest {
  const fromHeader = recognisedExtensions(context.headers?.extensions);
  const accepted = context.accepted ? { onAccepted: context.accepted } : {};
  if (fromHeader.length === 0) return { ...request, ...accepted };
  return { ...request, extensions: [...new Set([...request.extensions, ...fromHeader])], ...accepted };
}

/** The task a send answered with: `{ task }` in 1.0, the Task itself in 0.3. */
function taskOfResult(result: unknown): Record<string, unknown> | undefined {
  const task = isRecord(result) && isRecord(result.task) ? result.task : result;
  return isRecord(task) ? task : undefined;
}

function taskIdOf(result: unknown): string {
  const id = taskOfResult(result)?.id;
  return typeof id === "string" ? id : "";
}

/**
 * With --require-extensions (CONTRACT 9.5): every method needs RUNTIME activated, the sends IDEMPOTENCY too; the
 * card needs nothing.
 */
function requireExtensions(method: string, activated: readonly string[]): void {
  if (method === "agent/getCard") return;
  const needed = SEND_METHOD_NAMES[method] ? [RUNTIME_URI, IDEMPOTENCY_URI] : [RUNTIME_URI];
  const missing = needed.filter((uri) => !activated.includes(uri));
  if (missing.length === 0) return;
  throw new CoreError(
    "extension_support_required",
    `this runtime requires the extensions ${missing.join(", ")}; activate them with A2A-Extensions`,
    { missing_extensions: missing.join(",") },
  );
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

export interface Operations {
  /** Every operation's name, of both families. */
  readonly names: readonly string[];
  /** The family an operation belongs to, or undefined when there is no such operation. */
  familyOf(name: string): Family | undefined;
  /** Runs one operation: its answer, or it rejects with a CoreError or an RpcFailure. */
  call(name: string, params: unknown, context: CallContext): Promise<unknown>;
}

/** The JSON-RPC error of a family that a rejection of `Operations.call` stands for. */
export function rpcErrorOf(family: Family, error: CoreError | RpcFailure): RpcError {
  return error instanceof RpcFailure ? error.error : (family === "0.3" ? error03 : error10)(error);
}

export function createOperations(deps: OperationDeps): Operations {
  const { service } = deps;
  const dispatcher = service.dispatcher;
  const texts = new EndedTaskTexts();

  const stream03 = async (stream: Promise<TaskStream> | TaskStream) => {
    const opened = await stream;
    const task = await firstTask(opened);
    return new StreamReply(task.id, v03.taskOf(task), opened, encode03, "0.3");
  };
  const stream10 = async (stream: Promise<TaskStream> | TaskStream, subscription = false) => {
    const opened = await stream;
    const task = await firstTask(opened);
    const numbers = { first: task.lastEvent, of: eventNumberOf };
    return new StreamReply(task.id, { task: v10.taskOf(task) }, opened, encode10, "1.0", numbers, subscription);
  };
  // The extended card: the public card plus the operator's setup, for an authenticated caller (CONTRACT 8.2).
  const extended = <C extends Parameters<typeof extendedCard>[0]>(card: C): C => {
    if (!deps.operator) throw new CoreError("extended_card_not_configured", "no extended agent card is configured");
    return extendedCard(card, { ...deps.operator, containment: dispatcher.containmentKind });
  };
  const ended: StopRule = "ended";
  const endedOrInput: StopRule = "ended-or-input";
  const runtimeCard = deps.runtime ?? DEFAULT_RUNTIME_CARD;

  const v03Operations: Record<string, Operation> = {
    "message/send": async (params, context) => {
      const request = withHeaders(send03(params), context);
      const history = historyOf(request.historyLength);
      return v03.taskOf(await service.send(request), history);
    },
    "message/stream": (params, context) => stream03(service.stream(withHeaders(send03(params), context), ended)),
    "tasks/get": (params) => {
      const { id, historyLength } = getRequestOf(params);
      return texts.answer(service.head(id), `0.3 ${historyLength}`, () =>
        v03.taskOf(service.get({ id }), historyOf(historyLength)),
      );
    },
    "tasks/list": (params) => listAnswer(service, listRequest03(params), v03.taskOf),
    "tasks/cancel": async (params) => v03.taskOf(await service.cancel(getRequestOf(params).id)),
    "tasks/resubscribe": (params) => stream03(service.subscribe(getRequestOf(params).id, ended, false)),
    "agent/getCard": () => agentCard03(deps.version, dispatcher.instanceId, undefined, runtimeCard),
    "agent/getAuthenticatedExtendedCard": (_params, context) =>
      extended(
        agentCard03(deps.version, dispatcher.instanceId, context.base && `${context.base}/a2a/jsonrpc`, runtimeCard),
      ),
    ...pushOperations03(service),
  };

  const v10Operations: Record<string, Operation> = {
    SendMessage: async (params, context) => {
      const request = withHeaders(send10(params), context);
      const history = historyOf(request.historyLength);
      return { task: v10.taskOf(await service.send(request), history) };
    },
    SendStreamingMessage: (params, context) =>
      stream10(service.stream(withHeaders(send10(params), context), endedOrInput)),
    GetTask: (params) => {
      const { id, historyLength } = getRequest10(params);
      return texts.answer(service.head(id), `1.0 ${historyLength}`, () =>
        v10.taskOf(service.get({ id }), historyOf(historyLength)),
      );
    },
    ListTasks: (params) => listAnswer(service, listRequest10(params), v10.taskOf),
    CancelTask: async (params) => v10.taskOf(await service.cancel(getRequest10(params).id)),
    // Follows the task through its prompts and answers, to its end (A2A 1.0 §3.1.6, CONTRACT 7.3).
    SubscribeToTask: (params) => stream10(service.subscribe(getRequest10(params).id, ended, true), true),
    GetExtendedAgentCard: (_params, context) =>
      signedCard(
        deps.signer,
        extended(
          context.base === undefined
            ? stdioCard10(deps.version, dispatcher.instanceId, runtimeCard)
            : agentCard10(deps.version, dispatcher.instanceId, context.base, runtimeCard),
        ),
        context.base,
      ),
    ...pushOperations10(service),
  };

  /** How a kept answer of a task (an answer over 1 MiB) or of a stream is given again, per send method (9.1). */
  const replays: Record<string, { task(id: string, params: unknown): unknown; stream(id: string): unknown }> = {
    "message/send": {
      task: (id, params) => v03.taskOf(service.get({ id }), historyOf(send03(params).historyLength)),
      stream: (id) => stream03(new TaskStream(dispatcher, id, ended, { closingStatus: true })),
    },
    "message/stream": {
      task: () => undefined,
      stream: (id) => stream03(new TaskStream(dispatcher, id, ended, { closingStatus: true })),
    },
    SendMessage: {
      task: (id, params) => ({ task: v10.taskOf(service.get({ id }), historyOf(send10(params).historyLength)) }),
      stream: (id) => stream10(new TaskStream(dispatcher, id, endedOrInput, { closingStatus: true })),
    },
    SendStreamingMessage: {
      task: () => undefined,
      stream: (id) => stream10(new TaskStream(dispatcher, id, endedOrInput, { closingStatus: true })),
    },
  };

  const families = new Map<string, { family: Family; operation: Operation }>();
  for (const [name, operation] of Object.entries(v03Operations)) families.set(name, { family: "0.3", operation });
  for (const [name, operation] of Object.entries(v10Operations)) families.set(name, { family: "1.0", operation });

  /** A rejection as the operation's failure: a CoreError or an RpcFailure; anything else is logged, and internal. */
  const failureOf = (name: string, family: Family, error: unknown): CoreError | RpcFailure => {
    if (error instanceof CoreError || error instanceof RpcFailure) return error;
    deps.log(`internal error in ${name}: ${(error as Error)?.stack ?? error}`);
    return RpcFailure.internal(family);
  };

  const call = async (name: string, params: unknown, context: CallContext): Promise<unknown> => {
    const entry = families.get(name);
    if (!entry) throw new CoreError("invalid_params", `no such operation: ${logField(name)}`);
    const { family, operation } = entry;
    try {
      checkVersion(context.headers?.version ?? paramsServiceParameters(params).version, family);
      const activated = [...recognisedExtensions(context.headers?.extensions), ...activatedExtensions(params)];
      if (deps.runtime?.requireExtensions) requireExtensions(name, activated);
      const run = async (callContext = context) => {
        try {
          return await operation(params, callContext);
        } catch (error) {
          throw failureOf(name, family, error);
        }
      };
      if (SEND_METHOD_NAMES[name]) refuseEmptyMessageId(params);
      if (SEND_METHOD_NAMES[name] && deps.runtime?.requireExtensions) refuseNonUuidMessageId(params);
      const key = SEND_METHOD_NAMES[name] ? idempotencyKey(params) : undefined;
      let result: unknown;
      if (deps.idempotency && key !== undefined && activated.includes(IDEMPOTENCY_URI)) {
        result = (await deps.idempotency.call(idempotentSend(name, family, key, params, run, context))).value;
      } else result = await run();
      if (result instanceof StreamReply && context.notification) result.close();
      return result;
    } catch (error) {
      throw failureOf(name, family, error);
    }
  };

  /**
   * A kept answer that names its task (one over 1 MiB, a stream, one never given) cannot be given again once
   * --keep-tasks or --keep-bytes let the task go: the retry is told so in words, not replayed as a 404 that would
   * pass for the first answer, and the send is not run again (docs/reference.md, "The runtime's extensions").
   */
  const refuseForgotten = (key: string, taskId: string): void => {
    try {
      service.head(taskId);
      return;
    } catch (error) {
      if (!(error instanceof CoreError) || error.code !== "task_not_found") throw error;
    }
    throw new CoreError(
      "task_not_found",
      `the first answer to messageId ${logField(key)} was task ${logField(taskId)}, which this server no longer keeps (--keep-tasks, --keep-bytes); the send is not run again: send it with a new messageId to run it anew`,
      { task_id: taskId, reason: "kept_task_forgotten", message_id: key },
    );
  };

  /** One send under idempotency/v1: how its answer is kept, and given again (CONTRACT 9.1). */
  const idempotentSend = (
    name: string,
    family: Family,
    key: string,
    params: unknown,
    run: (callContext?: CallContext) => Promise<unknown>,
    context: CallContext,
  ): IdempotentCall<unknown> => {
    if (!isUuid(key))
      deps.log(`idempotency: messageId ${logField(key)} is not a UUID; it is used as the key all the same`);
    const replay = replays[name] as (typeof replays)[string];
    return {
      key,
      hash: requestHash(name, family, params),
      // Accepted, the send is kept as its task (or stream), so a retry after a crash never runs it again. Once given,
      // an answer goes out as the very text kept, so a replay is the same bytes: a blocking send's, a
      // returnImmediately send's (its task as it was then), an answer to a prompt's. Only an answer never given, or
      // one over 1 MiB, is read from the task as it is when replayed.
      run: async (accepted) => {
        const kind = STREAMING_OPERATIONS.has(name) ? "stream" : "task";
        const result = await run({ ...context, accepted: (taskId) => accepted({ kind, text: taskId }) });
        if (result instanceof StreamReply) return result;
        const text = valueJson(result);
        return text.length > MAX_ANSWER_BYTES ? result : new JsonText(text);
      },
      keep: (result) => {
        if (result instanceof StreamReply) return { kind: "stream", text: result.taskId };
        if (result instanceof JsonText) return { kind: "result", text: result.text };
        return { kind: "task", text: taskIdOf(result) };
      },
      errorOf: (error) =>
        error instanceof CoreError || error instanceof RpcFailure ? rpcErrorOf(family, error) : undefined,
      replay: (answer) => {
        if (answer.kind === "task" || answer.kind === "stream") refuseForgotten(key, answer.text);
        // Said even when the kept answer is an error (thrown below).
        context.replayed = true;
        if (answer.kind === "result") return new JsonText(answer.text);
        if (answer.kind === "task") return replay.task(answer.text, params);
        if (answer.kind === "stream") return replay.stream(answer.text);
        throw new RpcFailure(JSON.parse(answer.text) as RpcError);
      },
    };
  };
  return { names: [...families.keys()], familyOf: (name) => families.get(name)?.family, call };
}
