// A2A 0.3 params → the service's requests (CONTRACT 5.3).

import { isRecord } from "../../core/envelope/json-value.js";
import { carriesAnswer, checkAnswerMessage } from "../../core/hitl/answer-message.js";
import { TASK_STATES, type TaskState } from "../../core/task/task.js";
import { decodedSend, listRequestOf, type SendFields, type SendObjects, sendRequest } from "../decode.js";
import type { DecodedSend, ListRequest, SendRequest } from "../requests.js";
import { configurationProblems, readMessage03 } from "./message.js";

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
  const configuration = isRecord(object.configuration) ? object.configuration : {};
  return sendRequest({
    message: readMessage03(object.message, "/message"),
    metadata: object.metadata,
    problems: configurationProblems(object.configuration),
    params: object,
    returnImmediately: configuration.blocking === false,
    historyLength: configuration.historyLength,
    push: {
      config: configuration.pushNotificationConfig,
      path: "/configuration/pushNotificationConfig",
      family: "0.3",
    },
  });
}

export function listRequest03(params: unknown): ListRequest {
  return listRequestOf(params, (name) =>
    (TASK_STATES as readonly string[]).includes(name) ? (name as TaskState) : undefined,
  );
}
