// A2A 0.3 params → the service's requests (CONTRACT 5.3).
import { TASK_STATES, type TaskState } from "../../core/task.js";
import { listRequestOf, requireObject } from "../decode.js";
import type { ListRequest, SendRequest } from "../requests.js";
import { activatedExtensions } from "../service-params.js";

export function sendRequestOf(params: unknown): SendRequest {
  const object = requireObject(params, "MessageSendParams");
  const configuration = (object.configuration ?? {}) as Record<string, unknown>;
  const request: SendRequest = {
    params: object,
    extensions: activatedExtensions(object),
    returnImmediately: configuration.blocking === false,
  };
  if (typeof configuration.historyLength === "number") request.historyLength = configuration.historyLength;
  return request;
}

export function listRequest03(params: unknown): ListRequest {
  return listRequestOf(params, (name) =>
    (TASK_STATES as readonly string[]).includes(name) ? (name as TaskState) : undefined,
  );
}
