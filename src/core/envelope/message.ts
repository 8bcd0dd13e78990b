// The core's own message: what a user sent (a request, or an answer to a prompt), whichever protocol it came on.
// Each codec reads its wire shape into this one and writes it back in its own (docs/architecture.md, "The codecs");
// the core reads no wire shape, and the state dir keeps this one (src/store/rows.ts).
import * as v from "valibot";
import type { Problem } from "./problems.js";

/** Free-form data about a message or a part, by key. */
export type Metadata = Record<string, unknown>;

/** Text; with a media type when the sender named one (the echo takes only text/plain, CONTRACT 3.4). */
export interface TextPart {
  type: "text";
  text: string;
  mediaType?: string;
  metadata?: Metadata;
}

/** A file, by URI or as its bytes in base64; neither when the sender gave neither. */
export interface FilePart {
  type: "file";
  uri?: string;
  bytes?: string;
  name?: string;
  mediaType?: string;
  metadata?: Metadata;
}

/** Structured data: an object. */
export interface DataPart {
  type: "data";
  data: Record<string, unknown>;
  metadata?: Metadata;
}

export type Part = TextPart | FilePart | DataPart;

/** A well-formed message from the user, as the core keeps it (a task's request and answers). */
export interface Message {
  role: "user";
  parts: Part[];
  messageId?: string;
  contextId?: string;
  taskId?: string;
  metadata?: Metadata;
  extensions?: string[];
  /** Tasks the sender names as context for this one. */
  referenceTaskIds?: string[];
}

/**
 * A message as its codec read it, well formed or not: every field that could be read, and each part in its place
 * (undefined where the wire part is no part). The core's own rules (the start limits, the echo's parts, where the
 * envelope is) are judged on it even when the wire shape is wrong, so that every problem is reported at once.
 */
export interface MessageSeen extends Omit<Partial<Message>, "parts"> {
  /** Absent when the wire message has no array of parts. */
  parts?: ReadonlyArray<Part | undefined>;
}

/**
 * What a codec makes of a wire message: what it saw, and what the wire shape breaks (JSON Pointers where the
 * sender wrote it). No problem: `seen` is a well-formed Message.
 */
export interface MessageRead {
  seen: MessageSeen;
  problems: Problem[];
}

/** The message when it was read without a problem. */
export function wellFormed(read: MessageRead): Message | undefined {
  const { seen, problems } = read;
  if (problems.length > 0 || seen.role !== "user" || !seen.parts) return undefined;
  const parts = seen.parts.filter((part): part is Part => part !== undefined);
  return parts.length === seen.parts.length ? { ...seen, role: "user", parts } : undefined;
}

/** The text parts of a message joined by newlines (AIWG_A2A_MESSAGE, and the echo's output). */
export function messageText(message: Pick<MessageSeen, "parts"> | undefined): string {
  return textsOf(message?.parts ?? []).join("\n");
}

/** The texts of the text parts, in order. */
export function textsOf(parts: ReadonlyArray<Part | undefined>): string[] {
  return parts.flatMap((part) => (part?.type === "text" ? [part.text] : []));
}

const MetadataSchema = v.record(v.string(), v.unknown());

/** The schema of a message's fields beside its role and parts. */
export const MESSAGE_FIELDS = {
  messageId: v.optional(v.string()),
  contextId: v.optional(v.string()),
  taskId: v.optional(v.string()),
  metadata: v.optional(MetadataSchema),
  extensions: v.optional(v.array(v.string())),
  referenceTaskIds: v.optional(v.array(v.string())),
};

/** The core's message as a schema: what the state dir checks a stored message against (src/store/rows.ts). */
export const MessageSchema: v.GenericSchema<unknown, Message> = v.object({
  role: v.literal("user"),
  parts: v.array(
    v.variant("type", [
      v.object({
        type: v.literal("text"),
        text: v.string(),
        mediaType: v.optional(v.string()),
        metadata: v.optional(MetadataSchema),
      }),
      v.object({
        type: v.literal("file"),
        uri: v.optional(v.string()),
        bytes: v.optional(v.string()),
        name: v.optional(v.string()),
        mediaType: v.optional(v.string()),
        metadata: v.optional(MetadataSchema),
      }),
      v.object({ type: v.literal("data"), data: MetadataSchema, metadata: v.optional(MetadataSchema) }),
    ]),
  ),
  ...MESSAGE_FIELDS,
});
