// A2A 0.3 params → the service's requests (CONTRACT 5.3).

import { configurationProblems } from "../../core/envelope/envelope.js";
import { isRecord } from "../../core/envelope/json-value.js";
import { carriesAnswer, checkAnswerMessage } from "../../core/hitl/answer-message.js";
import { TASK_STATES, type TaskState } from "../../core/task/task.js";
import { decodedSend, listRequestOf, type SendFields, type SendObjects } from "../decode.js";
import { configRequestOf } from "../push/config-wire.js";
import type { DecodedSend, ListRequest, SendRequest } from "../requests.js";
import { activatedExtensions } from "../service-params.js";

/** The fields of a 0.3 MessageSendParams' objects, camelCase as 0.3 spells them (others are ignored). */
const FIELDS: SendFields = {
  params: ["message", "configuration", "metadata"],
  message: ["kind", "role", "parts", "contextId", "taskId", "metadata", "extensions", "referenceTaskIds"],
  part: ["kind", "text", "data", "file", "metadata"],
  configuration: ["acceptedOutputModes", "historyLength", "blocking", "pushNotificationConfig"],
};

function objectsOf(params: Record<string, unknown>): SendObjects {
  const message = params.message;
  const parts = isRecord(message) ? message.parts : undefined;
  return { params, message, parts, configuration: params.configuration };
}

/** A 0.3 MessageSendParams, decoded once: for the hash and for the service. */
export function decodeSend03(params: unknown): DecodedSend {
  return decodedSend(params, "MessageSendParams", FIELDS, objectsOf, requestOf);
}

function requestOf({ params: object }: SendObjects): SendRequest {
  if (carriesAnswer(object.message)) checkAnswerMessage(object.message, "user");
  const configuration = (object.configuration ?? {}) as Record<string, unknown>;
  const request: SendRequest = {
    message: object.message,
    metadata: object.metadata,
    problems: configurationProblems(object.configuration),
    extensions: activatedExtensions(object),
    returnImmediately: configuration.blocking === false,
  };
  if (typeof configuration.historyLength === "number") request.historyLength = configuration.historyLength;
  const push = configuration.pushNotificationConfig;
  const path = "/configuration/pushNotificationConfig";
  if (push !== undefined && push !== null)
    request.push = { config: configRequestOf(push, path, "0.3"), family: "0.3", path };
  return request;
}

export function listRequest03(params: unknown): ListRequest {
  return listRequestOf(params, (name) =>
    (TASK_STATES as readonly string[]).includes(name) ? (name as TaskState) : undefined,
  );
}
