// The key and the request hash of idempotency/v1 (CONTRACT 9.1): the key is the message's `messageId`; the hash is
// the lowercase hex SHA-256 of the RFC 8785 (JCS) canonical form of `{ method: <the 1.0 name>, params }`, where the
// params are as decoded: camelCase names, unknown fields dropped, `message.messageId` and the service parameters
// removed. So a retry spelling a field in snake_case, or sending its keys in another order, is the same request.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { isRecord } from "../core/envelope/json-value.js";
import { logField } from "../core/log-field.js";
import { invalidParams } from "./decode.js";
import type { Family } from "./service-params.js";
import { SERVICE_PARAMETERS } from "./service-params.js";

/** The sends idempotency/v1 covers, with their 1.0 names. */
export const SEND_METHOD_NAMES: Readonly<Record<string, string>> = {
  "message/send": "SendMessage",
  "message/stream": "SendStreamingMessage",
  SendMessage: "SendMessage",
  SendStreamingMessage: "SendStreamingMessage",
};

/** The fields each object of a send request may have, per family (A2A 0.3 MessageSendParams, 1.0 SendMessageRequest). */
const FIELDS: Record<Family, Record<"params" | "message" | "part" | "configuration", readonly string[]>> = {
  "0.3": {
    params: ["message", "configuration", "metadata"],
    message: ["kind", "role", "parts", "contextId", "taskId", "metadata", "extensions", "referenceTaskIds"],
    part: ["kind", "text", "data", "file", "metadata"],
    configuration: ["acceptedOutputModes", "historyLength", "blocking", "pushNotificationConfig"],
  },
  "1.0": {
    params: ["tenant", "message", "configuration", "metadata"],
    message: ["role", "parts", "contextId", "taskId", "metadata", "extensions", "referenceTaskIds"],
    part: ["text", "data", "raw", "url", "filename", "mediaType", "metadata"],
    configuration: ["acceptedOutputModes", "historyLength", "returnImmediately", "taskPushNotificationConfig"],
  },
};

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/** The known fields of an object, camelCase (a camelCase name wins over its snake_case spelling); others dropped. */
function known(value: unknown, fields: readonly string[]): Record<string, unknown> | unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    const name = camel(key);
    if (!fields.includes(name) || (name !== key && name in value)) continue;
    out[name] = field;
  }
  return out;
}

/** The params of a send as the hash sees them. */
export function decodedSendParams(family: Family, params: unknown): unknown {
  const fields = FIELDS[family];
  const decoded = known(params, fields.params);
  if (!isRecord(decoded)) return decoded;
  if (isRecord(decoded.metadata)) {
    // Service parameters travel here on stdio and in headers on HTTP: they are not part of the request (9.1).
    const { [SERVICE_PARAMETERS]: _service, ...metadata } = decoded.metadata;
    if (Object.keys(metadata).length > 0) decoded.metadata = metadata;
    else delete decoded.metadata;
  }
  const message = known(decoded.message, fields.message);
  if (isRecord(message) && Array.isArray(message.parts))
    message.parts = message.parts.map((part) => known(part, fields.part));
  if (decoded.message !== undefined) decoded.message = message;
  if (decoded.configuration !== undefined) decoded.configuration = known(decoded.configuration, fields.configuration);
  return decoded;
}

/** The message's `messageId`, the key; undefined when there is none to key on. */
/** A send's messageId may be left out, but never empty: "" would be a key that keys nothing (CONTRACT 9.1). */
export function refuseEmptyMessageId(params: unknown): void {
  const message = isRecord(params) ? params.message : undefined;
  if (!isRecord(message)) return;
  const field = "messageId" in message ? "messageId" : "message_id";
  if (message[field] !== "") return;
  throw invalidParams([
    {
      path: `/message/${field}`,
      code: "message_id_empty",
      message: "expected a non-empty messageId, found an empty string",
    },
  ]);
}

export function idempotencyKey(params: unknown): string | undefined {
  const message = isRecord(params) ? params.message : undefined;
  if (!isRecord(message)) return undefined;
  const id = message.messageId ?? message.message_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** The request hash of a send (`method` any name of SEND_METHOD_NAMES). */
export function requestHash(method: string, family: Family, params: unknown): string {
  const text = canonicalize({ method: SEND_METHOD_NAMES[method] ?? method, params: decodedSendParams(family, params) });
  return createHash("sha256")
    .update(text ?? "")
    .digest("hex");
}

/** A UUID in its canonical 8-4-4-4-12 hex form, any version (CONTRACT 9.1). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/**
 * Under --require-extensions a send's messageId must be a UUID, as the runtime's idempotency/v1 §7.1 requires (a MUST,
 * "400 Bad Request"); a plain A2A client's other ids are taken otherwise (docs/reference.md, "The runtime's
 * extensions").
 */
export function refuseNonUuidMessageId(params: unknown): void {
  const message = isRecord(params) ? params.message : undefined;
  if (!isRecord(message)) return;
  const field = "messageId" in message || !("message_id" in message) ? "messageId" : "message_id";
  const id = message[field];
  if (typeof id === "string" && isUuid(id)) return;
  const found = typeof id === "string" ? logField(id) : id === undefined ? "none" : `a ${typeof id}`;
  throw invalidParams([
    {
      path: `/message/${field}`,
      code: "message_id_not_uuid",
      message: `expected a messageId that is a UUID (8-4-4-4-12 hex digits, as this runtime requires), found ${found}`,
    },
  ]);
}
