// The A2A 0.3 methods on one JSON-RPC server; each turns params into a dispatcher call and the result into wire shapes.
import { JSONRPCErrorException, JSONRPCServer } from "json-rpc-2.0";
import * as v from "valibot";
import { agentCard, eventOf, SERVICE_PARAMETERS, taskOf, type WireEvent } from "../a2a/codec.js";
import { checkAnswerMessage } from "../core/answer-message.js";
import type { Dispatcher, DispatcherEvent } from "../core/dispatcher.js";
import { analyzeSendParams } from "../core/envelope.js";
import { CoreError } from "../core/errors.js";
import { isRecord } from "../core/json-value.js";
import { isTerminal } from "../core/task.js";
import type { TaskView } from "../core/task-record.js";
import { ADAPTER_URI, HITL_URI } from "../core/uris.js";
import { RPC, toRpcError } from "./errors.js";
import { parseParams } from "./params.js";

/** Per request: work to do once its response has been written (a stream's events must follow its result). */
export interface RequestContext {
  after: Array<() => void>;
}

export interface MethodDeps {
  dispatcher: Dispatcher;
  version: string;
  notify(event: WireEvent): void;
  log(line: string): void;
}

const IdParams = v.looseObject({
  id: v.string(),
  historyLength: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
const RECOGNISED = [ADAPTER_URI, HITL_URI];

/** The extensions activated by `params.metadata["a2a-service-parameters"]["A2A-Extensions"]` that we recognise. */
export function activatedExtensions(params: Record<string, unknown>): string[] {
  const metadata = params.metadata;
  const service = isRecord(metadata) ? metadata[SERVICE_PARAMETERS] : undefined;
  // A header name: its case does not matter.
  const key = isRecord(service) ? Object.keys(service).find((k) => k.toLowerCase() === "a2a-extensions") : undefined;
  const header = isRecord(service) && key !== undefined ? service[key] : undefined;
  if (typeof header !== "string") return [];
  const asked = header.split(",").map((uri) => uri.trim().toLowerCase());
  return RECOGNISED.filter((uri) => asked.includes(uri.toLowerCase()));
}

const wantsStop = (task: TaskView) => isTerminal(task.state) || task.state === "input-required";

export function createMethods(deps: MethodDeps): JSONRPCServer<RequestContext> {
  const { dispatcher } = deps;
  // Errors are answered to the client; the library need not print them too.
  const server = new JSONRPCServer<RequestContext>({ errorListener: () => {} });

  /** Tasks whose events are already forwarded: this one client would only get each of them twice. */
  const followed = new Set<string>();

  /**
   * Forwards a task's events as `tasks/event` notifications, starting once the current response is out. Until
   * then (a batch answers when its slowest request does) the task's output is held back rather than buffered.
   */
  const follow = (taskId: string, context: RequestContext) => {
    if (followed.has(taskId)) return;
    // The task may have ended before we listened (an answer's delivery is awaited): its end is still told.
    const now = dispatcher.get(taskId, false);
    followed.add(taskId);
    const pending: DispatcherEvent[] = [];
    let live = false;
    const forward = (event: DispatcherEvent) => {
      const wire = eventOf(event);
      if (wire) deps.notify(wire);
      if (event.type === "status" && isTerminal(event.task.state)) {
        off();
        followed.delete(taskId);
      }
    };
    const off = dispatcher.subscribe((event) => {
      if ((event.type === "status" ? event.task.id : event.taskId) !== taskId) return;
      if (live) forward(event);
      else pending.push(event);
    });
    if (isTerminal(now.state)) pending.push({ type: "status", task: now });
    dispatcher.holdOutput(taskId);
    context.after.push(() => {
      live = true;
      for (const event of pending.splice(0)) forward(event);
      dispatcher.releaseOutput(taskId);
    });
  };

  const send = async (params: unknown, context: RequestContext, streaming: boolean) => {
    if (!isRecord(params))
      throw new JSONRPCErrorException("Invalid params: expected MessageSendParams (an object)", RPC.invalidParams, {
        errors: [{ path: "", code: "wrong_type", message: "expected MessageSendParams (an object)" }],
      });
    const message = params.message;
    if (isRecord(message) && isRecord(message.metadata) && "hitl_response_for" in message.metadata) {
      checkAnswerMessage(message, "user");
      const task = await dispatcher.answer({
        taskId: typeof message.taskId === "string" ? message.taskId : undefined,
        contextId: typeof message.contextId === "string" ? message.contextId : undefined,
        response: message.metadata.hitl_response_for,
      });
      if (streaming) follow(task.id, context);
      return taskOf(task);
    }
    if (isRecord(message) && typeof message.taskId === "string") {
      throw new JSONRPCErrorException(
        "Invalid params: a message for an existing task must answer its prompt (metadata.hitl_response_for)",
        RPC.invalidParams,
        {
          errors: [
            {
              path: "/message/metadata/hitl_response_for",
              code: "missing_field",
              message: 'missing required field "hitl_response_for"',
            },
          ],
        },
      );
    }
    const extensions = activatedExtensions(params);
    const task = dispatcher.submit({
      analysis: analyzeSendParams(params),
      hitlActivated: extensions.includes(HITL_URI),
      extensions,
    });
    const configuration = isRecord(params.configuration) ? params.configuration : {};
    const historyLength =
      typeof configuration.historyLength === "number" ? { historyLength: configuration.historyLength } : {};
    if (streaming) {
      follow(task.id, context);
      return taskOf(task, historyLength);
    }
    if (configuration.blocking === false) return taskOf(task, historyLength);
    return taskOf(await dispatcher.until(task.id, wantsStop), historyLength);
  };

  const methods: Record<string, (params: unknown, context: RequestContext) => unknown> = {
    "message/send": (params, context) => send(params, context, false),
    "message/stream": (params, context) => send(params, context, true),
    "tasks/get": (params) => {
      const { id, historyLength } = parseParams(IdParams, params);
      return taskOf(dispatcher.get(id), historyLength === undefined ? {} : { historyLength });
    },
    "tasks/list": () => ({ tasks: dispatcher.list().map((task) => taskOf(task)) }),
    "tasks/cancel": async (params) => {
      const { id } = parseParams(IdParams, params);
      dispatcher.cancel(id);
      return taskOf(await dispatcher.until(id, (task) => isTerminal(task.state)));
    },
    "tasks/resubscribe": (params, context) => {
      const { id } = parseParams(IdParams, params);
      const task = dispatcher.get(id);
      if (!isTerminal(task.state)) follow(id, context);
      return taskOf(task);
    },
    "agent/getCard": () => agentCard(deps.version, dispatcher.instanceId),
  };

  for (const [name, method] of Object.entries(methods)) {
    server.addMethod(name, async (params, context) => {
      try {
        return await method(params, context);
      } catch (error) {
        if (error instanceof CoreError) throw toRpcError(error);
        if (error instanceof JSONRPCErrorException) throw error;
        deps.log(`internal error in ${name}: ${(error as Error)?.stack ?? error}`);
        throw new JSONRPCErrorException("Internal error", RPC.internal, {});
      }
    });
  }
  return server;
}
