// A task's messages as the state dir keeps them: the core's message (src/core/envelope/message.ts) since schema
// version 5; rows written before keep the shape the core had then (parts tagged by `kind`, as A2A 0.3 spells
// them), and are read into the core's message as they are read, so a state dir of an older version opens and its
// tasks read as before. Each row is rewritten in the new shape the next time its task is written.
import * as v from "valibot";
import { MESSAGE_FIELDS, type Message, MessageSchema, type Part } from "../core/envelope/message.js";

const Metadata = v.record(v.string(), v.unknown());

/** A message as rows before schema version 5 hold it (fields the core did not read were kept as sent). */
const BeforeV5Schema = v.looseObject({
  role: v.literal("user"),
  parts: v.array(
    v.variant("kind", [
      v.looseObject({ kind: v.literal("text"), text: v.string(), metadata: v.optional(Metadata) }),
      v.looseObject({ kind: v.literal("file"), file: v.looseObject({}), metadata: v.optional(Metadata) }),
      v.looseObject({ kind: v.literal("data"), data: Metadata, metadata: v.optional(Metadata) }),
    ]),
  ),
  ...MESSAGE_FIELDS,
});
type BeforeV5 = v.InferOutput<typeof BeforeV5Schema>;

/** A stored message of either shape. */
export const StoredMessageSchema = v.union([MessageSchema, BeforeV5Schema]);

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const defined = <T extends object>(value: T): T =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as T;

function partBeforeV5(part: BeforeV5["parts"][number]): Part {
  const metadata = part.metadata;
  if (part.kind === "text")
    return defined({ type: "text", text: part.text, mediaType: text(part.mediaType), metadata });
  if (part.kind === "data") return defined({ type: "data", data: part.data, metadata });
  const { uri, bytes, name, mimeType } = part.file;
  return defined({
    type: "file",
    uri: text(uri),
    bytes: text(bytes),
    name: text(name),
    mediaType: text(mimeType),
    metadata,
  });
}

/** A stored message (checked against StoredMessageSchema before) as the core's message. */
export function messageOfRow(stored: Message | BeforeV5): Message {
  if (!stored.parts.some((part) => "kind" in part)) return stored as Message;
  const { role, parts, messageId, contextId, taskId, metadata, extensions, referenceTaskIds } = stored as BeforeV5;
  return defined({
    role,
    parts: parts.map(partBeforeV5),
    messageId,
    contextId,
    taskId,
    metadata,
    extensions,
    referenceTaskIds,
  });
}
