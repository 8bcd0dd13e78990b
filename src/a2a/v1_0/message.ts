// The A2A 1.0 Message (ProtoJSON, its names camelCase already): its schema, its reading into the core's message, and
// the core's message written back. A Part holds exactly one of text, raw, url, data (the proto's `oneof content`).
import * as v from "valibot";
import { isRecord } from "../../core/envelope/json-value.js";
import type { Message, MessageRead, MessageSeen, Part } from "../../core/envelope/message.js";
import { invalidParams } from "../decode.js";
import { partMetadata, sharedFields, stringField, wireProblems, writtenFields } from "../message-fields.js";

/** What a 1.0 Part holds: exactly one of them. */
const CONTENTS = ["text", "raw", "url", "data"] as const;

const Metadata = v.record(v.string(), v.unknown());

const PartSchema = v.looseObject({
  text: v.optional(v.string()),
  raw: v.optional(v.string()),
  url: v.optional(v.string()),
  data: v.optional(v.unknown()),
  filename: v.optional(v.string()),
  mediaType: v.optional(v.string()),
  metadata: v.optional(Metadata),
});

/** The user's role: 1.0's name, and 0.3's, which a 1.0 send has always been taken with too. */
const USER_ROLES = ["ROLE_USER", "user"] as const;

const MessageSchema = v.looseObject({
  role: v.picklist(USER_ROLES),
  parts: v.array(PartSchema),
  messageId: v.optional(v.string()),
  contextId: v.optional(v.string()),
  taskId: v.optional(v.string()),
  metadata: v.optional(Metadata),
  extensions: v.optional(v.array(v.string())),
});

export interface Part1 {
  text?: string;
  data?: unknown;
  raw?: string;
  url?: string;
  filename?: string;
  mediaType?: string;
  metadata?: Record<string, unknown>;
}

/** Refuses a Part without exactly one content: which one it is cannot be told (thrown, as its own error). */
function checkOneContent(part: unknown, index: number): void {
  if (!isRecord(part)) return;
  const found = CONTENTS.filter((key) => part[key] !== undefined);
  if (found.length !== 1)
    throw invalidParams([
      {
        path: `/message/parts/${index}`,
        code: "one_of",
        message: `expected a Part with exactly one of ${CONTENTS.join(", ")}, found ${found.length === 0 ? "none" : found.join(" and ")}`,
      },
    ]);
}

/** A 1.0 Part as the core's, when it is one. A `data` that is no object is kept under `value`. */
function partOf(part: unknown): Part | undefined {
  if (!isRecord(part)) return undefined;
  const { text, data, raw, url, filename, mediaType } = part;
  if (typeof text === "string")
    return { type: "text", text, ...stringField("mediaType", mediaType), ...partMetadata(part) };
  if (data !== undefined) return { type: "data", data: isRecord(data) ? data : { value: data }, ...partMetadata(part) };
  if (typeof url === "string" || typeof raw === "string")
    return {
      type: "file",
      ...(typeof url === "string" ? { uri: url } : { bytes: raw as string }),
      ...stringField("name", filename),
      ...stringField("mediaType", mediaType),
      ...partMetadata(part),
    };
  return undefined;
}

/** A 1.0 message and its parts (each under camelCase names) read into the core's message, with what they break. */
export function readMessage10(message: unknown, parts: unknown): MessageRead {
  if (Array.isArray(parts)) parts.forEach(checkOneContent);
  const wire = isRecord(message) ? { ...message, parts } : message;
  const problems = wireProblems(MessageSchema, wire, "/message");
  if (!isRecord(message)) return { seen: {}, problems };
  const seen: MessageSeen = sharedFields(message);
  if ((USER_ROLES as readonly unknown[]).includes(message.role)) seen.role = "user";
  if (Array.isArray(parts)) seen.parts = parts.map(partOf);
  return { seen, problems };
}

/** A core part as a 1.0 Part: exactly one of text, data, raw, url. */
function wirePart(part: Part): Part1 {
  const wire: Part1 = {};
  if (part.type === "text") wire.text = part.text;
  else if (part.type === "data") wire.data = part.data;
  else if (part.uri !== undefined) wire.url = part.uri;
  else wire.raw = part.bytes ?? "";
  if (part.type === "file" && part.name !== undefined) wire.filename = part.name;
  if (part.type !== "data" && part.mediaType !== undefined) wire.mediaType = part.mediaType;
  if (part.metadata) wire.metadata = part.metadata;
  return wire;
}

/** A core message as 1.0 writes it, without the ids its task gives it. */
export function wireMessage10(message: Message): {
  role: "ROLE_USER";
  parts: Part1[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
} {
  return { role: "ROLE_USER", parts: message.parts.map(wirePart), ...writtenFields(message) };
}
