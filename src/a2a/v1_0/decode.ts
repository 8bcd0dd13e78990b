// A2A 1.0 params → the service's requests (CONTRACT 7.1, 7.2): snake_case or camelCase names, unknown fields ignored,
// and 1.0 messages turned into the core's message shape (pointers stay the same: message/parts/N).

import { isRecord } from "../../core/envelope/json-value.js";
import { checkAnswerMessage } from "../../core/hitl/answer-message.js";
import type { TaskState } from "../../core/task/task.js";
import { carriesAnswer, getRequestOf, invalidParams, listRequestOf, requireObject } from "../decode.js";
import type { GetRequest, ListRequest, SendRequest } from "../requests.js";
import { activatedExtensions } from "../service-params.js";
import { STATE_NAMES } from "./codec.js";

/** The same object with snake_case names also given as camelCase (a camelCase name already there wins). */
export function camelKeys(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) return {};
  const out: Record<string, unknown> = { ...value };
  for (const [key, field] of Object.entries(value)) {
    if (!key.includes("_")) continue;
    const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (!(camel in out)) out[camel] = field;
    delete out[key];
  }
  return out;
}

const ROLES: Record<string, string> = { ROLE_USER: "user", ROLE_AGENT: "agent" };

/** What a 1.0 Part holds: exactly one of them (the proto's `oneof content`). */
const CONTENTS = ["text", "raw", "url", "data"] as const;

/** A 1.0 Part as the core's part: `{ text }` → `{ kind: "text", text }`, and so on. */
function corePart(value: unknown, index: number): unknown {
  if (!isRecord(value)) return value;
  const part = camelKeys(value);
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

function coreMessage(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const message = camelKeys(value);
  if (typeof message.role === "string" && message.role in ROLES) message.role = ROLES[message.role];
  if (Array.isArray(message.parts)) message.parts = message.parts.map(corePart);
  return message;
}

export function sendRequestOf(params: unknown): SendRequest {
  const object = camelKeys(requireObject(params, "SendMessageRequest"));
  if (carriesAnswer(object.message)) checkAnswerMessage(object.message, "ROLE_USER");
  const configuration = camelKeys(object.configuration);
  const translated: Record<string, unknown> = { ...object, message: coreMessage(object.message) };
  // The core reads 0.3 configuration; 1.0's returnImmediately is read here.
  delete translated.configuration;
  const request: SendRequest = {
    params: translated,
    extensions: activatedExtensions(object),
    returnImmediately: configuration.returnImmediately === true,
  };
  if (typeof configuration.historyLength === "number") request.historyLength = configuration.historyLength;
  const push = configuration.taskPushNotificationConfig;
  if (push !== undefined && push !== null)
    request.push = { config: push, family: "1.0", path: "/configuration/taskPushNotificationConfig" };
  return request;
}

export function getRequest10(params: unknown): GetRequest {
  return getRequestOf(camelKeys(params));
}

const STATES = new Map(Object.entries(STATE_NAMES).map(([state, name]) => [name, state as TaskState]));

export function listRequest10(params: unknown): ListRequest {
  return listRequestOf(camelKeys(params ?? {}), (name) => STATES.get(name));
}
