// The key and the request hash of idempotency/v1 (CONTRACT 9.1): the key is the message's `messageId`; the hash is
// the lowercase hex SHA-256 of the RFC 8785 (JCS) canonical form of `{ method: <the 1.0 name>, params }`, where the
// params are as decoded: camelCase names, unknown fields dropped, `message.messageId` and the service parameters
// removed. So a retry spelling a field in snake_case, or sending its keys in another order, is the same request.
import { createHash } from "node:crypto";
import canonicalize from "canonicalize";
import { isRecord } from "../core/envelope/json-value.js";
import { logField } from "../core/log-field.js";
import { invalidParams } from "./decode.js";

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

/** The message's `messageId`, the key; undefined when there is none to key on. */
export function idempotencyKey(params: unknown): string | undefined {
  const message = isRecord(params) ? params.message : undefined;
  if (!isRecord(message)) return undefined;
  const id = message.messageId ?? message.message_id;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/**
 * The request hash of a send whose 1.0 name is `method` (SendMessage or SendStreamingMessage), of its params as its
 * codec decoded them (`DecodedSend.hashed`, src/a2a/decode.ts).
 */
export function requestHash(method: string, hashed: unknown): string {
  const text = canonicalize({ method, params: hashed });
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
