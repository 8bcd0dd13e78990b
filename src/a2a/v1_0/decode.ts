// A2A 1.0 params → the service's requests (CONTRACT 7.1, 7.2): snake_case or camelCase names, unknown fields ignored,
// and 1.0 messages turned into the core's message shape (pointers stay the same: message/parts/N).

import { isRecord } from "../../core/envelope/json-value.js";
import { carriesAnswer, checkAnswerMessage } from "../../core/hitl/answer-message.js";
import type { TaskState } from "../../core/task/task.js";
import {
  camelKeys,
  decodedSend,
  getRequestOf,
  invalidParams,
  listRequestOf,
  type SendFields,
  type SendObjects,
} from "../decode.js";
import { configRequestOf } from "../push/config-wire.js";
import type { DecodedSend, GetRequest, ListRequest, SendRequest } from "../requests.js";
import { activatedExtensions } from "../service-params.js";
import { STATE_NAMES } from "./codec.js";

const ROLES: Record<string, string> = { ROLE_USER: "user", ROLE_AGENT: "agent" };

/** What a 1.0 Part holds: exactly one of them (the proto's `oneof content`). */
const CONTENTS = ["text", "raw", "url", "data"] as const;

/** The fields of a 1.0 SendMessageRequest's objects (unknown fields are ignored, CONTRACT 7.2). */
const FIELDS: SendFields = {
  params: ["tenant", "message", "configuration", "metadata"],
  message: ["role", "parts", "contextId", "taskId", "metadata", "extensions", "referenceTaskIds"],
  part: ["text", "data", "raw", "url", "filename", "mediaType", "metadata"],
  configuration: ["acceptedOutputModes", "historyLength", "returnImmediately", "taskPushNotificationConfig"],
};

/** A 1.0 Part (its names camelCase already) as the core's part: `{ text }` → `{ kind: "text", text }`, and so on. */
function corePart(part: unknown, index: number): unknown {
  if (!isRecord(part)) return part;
  const found = CONTENTS.filter((key) => part[key] !== undefined);
  if (found.length !== 1)
    throw invalidParams([
      {
        path: `/message/parts/${index}`,
        code: "one_of",
        message: `expected a Part with exactly one of ${CONTENTS.join(", ")}, found ${found.length === 0 ? "none" : found.join(" and ")}`,
      },
    ]);
  const { text, data, raw, url, filename, mediaType, ...rest } = part;
  // A text part keeps its media type: the echo takes only text/plain (CONTRACT 3.4).
  if (typeof text === "string")
    return { kind: "text", text, ...(mediaType === undefined ? {} : { mediaType }), ...rest };
  if ("data" in part) return { kind: "data", data: isRecord(data) ? data : { value: data }, ...rest };
  if (typeof raw === "string" || typeof url === "string") {
    const file: Record<string, unknown> = typeof url === "string" ? { uri: url } : { bytes: raw };
    if (typeof filename === "string") file.name = filename;
    if (typeof mediaType === "string") file.mimeType = mediaType;
    return { kind: "file", file, ...rest };
  }
  return part;
}

/** The message (its names camelCase already) in the core's shape, with its parts. */
function coreMessage(value: unknown, parts: unknown): unknown {
  if (!isRecord(value)) return value;
  const message = { ...value };
  if (typeof message.role === "string" && message.role in ROLES) message.role = ROLES[message.role];
  if (Array.isArray(parts)) message.parts = parts.map(corePart);
  return message;
}

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
  const request: SendRequest = {
    message: coreMessage(message, parts),
    metadata: params.metadata,
    problems: [],
    extensions: activatedExtensions(params),
    returnImmediately: configuration.returnImmediately === true,
  };
  if (typeof configuration.historyLength === "number") request.historyLength = configuration.historyLength;
  const push = configuration.taskPushNotificationConfig;
  const path = "/configuration/taskPushNotificationConfig";
  if (push !== undefined && push !== null)
    request.push = { config: configRequestOf(push, path, "1.0"), family: "1.0", path };
  return request;
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
