// A2A 1.0 params → the service's requests (CONTRACT 7.1, 7.2): snake_case or camelCase names, unknown fields ignored,
// and 1.0 messages read into the core's message (src/a2a/v1_0/message.ts), problems at 1.0's own field paths.

import { isRecord } from "../../core/envelope/json-value.js";
import { carriesAnswer, checkAnswerMessage } from "../../core/hitl/answer-message.js";
import type { TaskState } from "../../core/task/task.js";
import {
  camelKeys,
  decodedSend,
  getRequestOf,
  listRequestOf,
  type SendFields,
  type SendObjects,
  sendRequest,
} from "../decode.js";
import type { DecodedSend, GetRequest, ListRequest, SendRequest } from "../requests.js";
import { STATE_NAMES } from "./codec.js";
import { readMessage10 } from "./message.js";

/** The fields of a 1.0 SendMessageRequest's objects (unknown fields are ignored, CONTRACT 7.2). */
const FIELDS: SendFields = {
  params: ["tenant", "message", "configuration", "metadata"],
  message: ["role", "parts", "contextId", "taskId", "metadata", "extensions", "referenceTaskIds"],
  part: ["text", "data", "raw", "url", "filename", "mediaType", "metadata"],
  configuration: ["acceptedOutputModes", "historyLength", "returnImmediately", "taskPushNotificationConfig"],
};

/** A 1.0 send's objects, each under its camelCase names (a snake_case spelling also taken, CONTRACT 7.2). */
function objectsOf(params: Record<string, unknown>): SendObjects {
  const object = camelKeys(params);
  const message = isRecord(object.message) ? camelKeys(object.message) : object.message;
  const parts = isRecord(message) && Array.isArray(message.parts) ? message.parts : undefined;
  return {
    params: object,
    message,
    parts: parts?.map((part) => (isRecord(part) ? camelKeys(part) : part)),
    configuration: isRecord(object.configuration) ? camelKeys(object.configuration) : object.configuration,
  };
}

function requestOf({ params, message, parts, configuration: given }: SendObjects): SendRequest {
  if (carriesAnswer(params.message)) checkAnswerMessage(params.message, "ROLE_USER");
  const configuration = isRecord(given) ? given : {};
  return sendRequest({
    message: readMessage10(message, parts),
    metadata: params.metadata,
    problems: [],
    params,
    returnImmediately: configuration.returnImmediately === true,
    historyLength: configuration.historyLength,
    push: {
      config: configuration.taskPushNotificationConfig,
      path: "/configuration/taskPushNotificationConfig",
      family: "1.0",
    },
  });
}

/** A 1.0 SendMessageRequest, decoded once: for the hash and for the service. */
export function decodeSend10(params: unknown): DecodedSend {
  return decodedSend(params, "SendMessageRequest", FIELDS, objectsOf, requestOf);
}

export const sendRequestOf = (params: unknown): SendRequest => decodeSend10(params).request();

export function getRequest10(params: unknown): GetRequest {
  return getRequestOf(camelKeys(params));
}

const STATES = new Map(Object.entries(STATE_NAMES).map(([state, name]) => [name, state as TaskState]));

export function listRequest10(params: unknown): ListRequest {
  return listRequestOf(camelKeys(params ?? {}), (name) => STATES.get(name));
}
