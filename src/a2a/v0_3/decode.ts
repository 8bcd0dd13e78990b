// A2A 0.3 params → the service's requests (CONTRACT 5.3).

import { checkAnswerMessage } from "../../core/hitl/answer-message.js";
import { TASK_STATES, type TaskState } from "../../core/task/task.js";
import { carriesAnswer, listRequestOf, requireObject } from "../decode.js";
import type { ListRequest, SendRequest } from "../requests.js";
import { activatedExtensions } from "../service-params.js";

export function sendRequestOf(params: unknown): SendRequest {
  const object = requireObject(params, "MessageSendParams");
  if (carriesAnswer(object.message)) checkAnswerMessage(object.message, "user");
  const configuration = (object.configuration ?? {}) as Record<string, unknown>;
  const request: SendRequest = {
    params: object,
    extensions: activatedExtensions(object),
    returnImmediately: configuration.blocking === false,
  };
  if (typeof configuration.historyLength === "number") request.historyLength = configuration.historyLength;
  const push = configuration.pushNotificationConfig;
  if (push !== undefined && push !== null)
    request.push = { config: push, family: "0.3", path: "/configuration/pushNotificationConfig" };
  return request;
}

export function listRequest03(params: unknown): ListRequest {
  return listRequestOf(params, (name) =>
    (TASK_STATES as readonly string[]).includes(name) ? (name as TaskState) : undefined,
  );
}
