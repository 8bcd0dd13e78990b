// Both A2A method families on one json-rpc-2.0 server, in front of the one service: 0.3 names with 0.3 shapes and
// 1.0 names with 1.0 shapes (CONTRACT 5.3, 7.1). Every JSON-RPC binding (stdio, HTTP) uses this table.
import { createJSONRPCErrorResponse, JSONRPCErrorException, type JSONRPCRequest, JSONRPCServer } from "json-rpc-2.0";
import { agentCard03 } from "../a2a/card.js";
import { getRequestOf } from "../a2a/decode.js";
import type { ListRequest, SendRequest, TaskOptions } from "../a2a/requests.js";
import { A2A_CODES } from "../a2a/rpc-codes.js";
import type { A2aService } from "../a2a/service.js";
import {
  checkVersion,
  type Family,
  paramsServiceParameters,
  recognisedExtensions,
  type ServiceParams,
} from "../a2a/service-params.js";
import { itemJson03, itemJson10, streamItem03, streamItem10 } from "../a2a/stream-json.js";
import type { StopRule, StreamItem, TaskStream } from "../a2a/task-stream.js";
import * as v03 from "../a2a/v0_3/codec.js";
import { listRequest03, sendRequestOf as send03 } from "../a2a/v0_3/decode.js";
import { rpcErrorOf as error03 } from "../a2a/v0_3/errors.js";
import * as v10 from "../a2a/v1_0/codec.js";
import { getRequest10, listRequest10, sendRequestOf as send10 } from "../a2a/v1_0/decode.js";
import { rpcErrorOf as error10 } from "../a2a/v1_0/errors.js";
import { closest } from "../core/edit-distance.js";
import { CoreError } from "../core/errors.js";
import type { TaskView } from "../core/task-record.js";
import { EndedTaskTexts } from "./ended-task-texts.js";
import { StreamReply } from "./stream-reply.js";

/** Per request: what the binding knows beyond the params (HTTP headers; none on stdio). */
export interface CallContext {
  headers?: ServiceParams;
  /** A request without an id: nobody will read its answer, so a stream it opens is closed at once. */
  notification?: boolean;
}

export interface MethodDeps {
  service: A2aService;
  version: string;
  log(line: string): void;
}

/** The methods that answer with a stream. */
export const STREAMING_METHODS = new Set([
  "message/stream",
  "tasks/resubscribe",
  "SendStreamingMessage",
  "SubscribeToTask",
]);

type Method = (params: unknown, context: CallContext) => unknown;

/** The items after the first, mapped into wire shapes (items that map to nothing are skipped). */
function rest(stream: TaskStream, map: (item: StreamItem) => unknown): AsyncIterator<unknown> {
  return {
    async next() {
      for (;;) {
        const step = await stream.next();
        if (step.done) return step;
        const value = map(step.value);
        if (value !== undefined) return { value, done: false };
      }
    },
    return: () => stream.return(),
  };
}

async function firstTask(stream: TaskStream): Promise<TaskView> {
  const first = await stream.next();
  return (first.value as { task: TaskView }).task;
}

function withHeaders(request: SendRequest, context: CallContext): SendRequest {
  const fromHeader = recognisedExtensions(context.headers?.extensions);
  if (fromHeader.length === 0) return request;
  return { ...request, extensions: [...new Set([...request.extensions, ...fromHeader])] };
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

export function createMethods(deps: MethodDeps): JSONRPCServer<CallContext> {
  const { service } = deps;
  const dispatcher = service.dispatcher;
  // Errors are answered to the client; the library need not print them too.
  const server = new JSONRPCServer<CallContext>({ errorListener: () => {} });
  const texts = new EndedTaskTexts();

  const stream03 = async (stream: Promise<TaskStream> | TaskStream) => {
    const opened = await stream;
    const task = await firstTask(opened);
    const map = (item: StreamItem) => (item.type === "task" ? undefined : streamItem03(item));
    return new StreamReply(task.id, v03.taskOf(task), rest(opened, map), itemJson03, "0.3");
  };
  const stream10 = async (stream: Promise<TaskStream> | TaskStream) => {
    const opened = await stream;
    const task = await firstTask(opened);
    const map = (item: StreamItem) => (item.type === "task" ? { task: v10.taskOf(item.task) } : streamItem10(item));
    return new StreamReply(task.id, { task: v10.taskOf(task) }, rest(opened, map), itemJson10, "1.0");
  };
  const ended: StopRule = "ended";
  const endedOrInput: StopRule = "ended-or-input";
  const unsupported = (code: "push_not_supported" | "extended_card_not_configured", text: string) => () => {
    throw new CoreError(code, text);
  };
  const push = unsupported("push_not_supported", "push notifications are not supported");

  const v03Methods: Record<string, Method> = {
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
    "agent/getCard": () => agentCard03(deps.version, dispatcher.instanceId),
    "agent/getAuthenticatedExtendedCard": unsupported(
      "extended_card_not_configured",
      "no extended agent card is configured",
    ),
    "tasks/pushNotificationConfig/set": push,
    "tasks/pushNotificationConfig/get": push,
    "tasks/pushNotificationConfig/list": push,
    "tasks/pushNotificationConfig/delete": push,
  };

  const v10Methods: Record<string, Method> = {
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
    SubscribeToTask: (params) => stream10(service.subscribe(getRequest10(params).id, endedOrInput, true)),
    GetExtendedAgentCard: unsupported("extended_card_not_configured", "no extended agent card is configured"),
    CreateTaskPushNotificationConfig: push,
    GetTaskPushNotificationConfig: push,
    ListTaskPushNotificationConfigs: push,
    DeleteTaskPushNotificationConfig: push,
  };

  const add = (family: Family, methods: Record<string, Method>) => {
    const toError = family === "0.3" ? error03 : error10;
    for (const [name, method] of Object.entries(methods)) {
      server.addMethod(name, async (params, context) => {
        try {
          checkVersion(context.headers?.version ?? paramsServiceParameters(params).version, family);
          const result = await method(params, context);
          if (result instanceof StreamReply && context.notification) result.close();
          return result;
        } catch (error) {
          if (error instanceof CoreError) {
            const { code, message, data } = toError(error);
            throw new JSONRPCErrorException(message, code, data);
          }
          if (error instanceof JSONRPCErrorException) throw error;
          deps.log(`internal error in ${name}: ${(error as Error)?.stack ?? error}`);
          throw new JSONRPCErrorException("Internal error", A2A_CODES.internal, family === "0.3" ? {} : []);
        }
      });
    }
  };
  add("0.3", v03Methods);
  add("1.0", v10Methods);
  server.handleMethodNotFound = unknownMethod([...Object.keys(v03Methods), ...Object.keys(v10Methods)]);
  return server;
}

/** -32601 that names what was asked for and, when one is a few letters off or in another case, the method meant. */
function unknownMethod(names: readonly string[]) {
  return async (request: JSONRPCRequest) => {
    const found = JSON.stringify(request.method).slice(0, 200);
    const meant = closest(request.method, names);
    const hint = meant ? `; did you mean "${meant}"?` : "";
    return createJSONRPCErrorResponse(
      request.id ?? null,
      A2A_CODES.methodNotFound,
      `Method not found: ${found}${hint}`,
    );
  };
}
