// The A2A 0.3 Message (`kind`-tagged parts), which is also the message of an input file (CONTRACT section 2, shapes
// A and B): its schema (the validator's and `adapter-command schema`'s) and its reading into the core's message.
import * as v from "valibot";
import { about, MetadataSchema, SchemaKeySchema } from "../../core/envelope/envelope-schema.js";
import { isRecord } from "../../core/envelope/json-value.js";
import type { Message, MessageRead, MessageSeen, Part } from "../../core/envelope/message.js";
import { type Problem, problemsFromIssues } from "../../core/envelope/problems.js";
import { partMetadata, sharedFields, stringField, wireProblems, writtenFields } from "../message-fields.js";

const PartMetadataSchema = v.optional(
  v.pipe(v.record(v.string(), v.unknown()), about("Part metadata", "Free-form data about the part.", [{}])),
);

const TextPartSchema = v.looseObject({
  kind: v.pipe(v.literal("text"), about("Kind", "A text part.", ["text"])),
  text: v.pipe(
    v.string(),
    about(
      "Text",
      "The text. Text parts joined by newlines become AIWG_A2A_MESSAGE (at most 64 KiB, no NUL), or the echo's output.",
      ["Run the bounded plan adapter."],
    ),
  ),
  metadata: PartMetadataSchema,
});
const FilePartSchema = v.looseObject({
  kind: v.pipe(v.literal("file"), about("Kind", "A file part.", ["file"])),
  file: v.pipe(v.looseObject({}), about("File", "The file, by URI or inline bytes.", [{ uri: "file:///tmp/x" }])),
  metadata: PartMetadataSchema,
});
const DataPartSchema = v.looseObject({
  kind: v.pipe(v.literal("data"), about("Kind", "A data part.", ["data"])),
  data: v.pipe(v.record(v.string(), v.unknown()), about("Data", "Structured data.", [{ note: "x" }])),
  metadata: PartMetadataSchema,
});

/** One part of a message, of any of the three kinds. */
export const PartSchema = v.variant("kind", [TextPartSchema, FilePartSchema, DataPartSchema]);

export const MessageSchema = v.looseObject({
  kind: v.optional(v.pipe(v.literal("message"), about("Kind", "Always message.", ["message"], { default: "message" }))),
  role: v.pipe(v.literal("user"), about("Role", "Required. Always user: a request to the agent.", ["user"])),
  parts: v.pipe(
    v.array(PartSchema),
    about(
      "Parts",
      "Required. Text, file and data parts; without an envelope, text/plain text parts only, at least one (the echo prints them). At most 1000 with an envelope.",
      [[{ kind: "text", text: "Run the bounded plan adapter." }]],
    ),
  ),
  messageId: v.optional(
    v.pipe(
      v.string(),
      about("Message id", "The sender's id for this message.", ["6f1c2a4e-0b7d-4c1e-9a3f-5d2e8b7c1a01"]),
    ),
  ),
  contextId: v.optional(
    v.pipe(v.string(), about("Context id", "The conversation the task belongs to; absent: a new one.", ["ctx-1"])),
  ),
  taskId: v.optional(v.pipe(v.string(), about("Task id", "Only when answering a prompt of that task.", ["task-1"]))),
  metadata: v.optional(MetadataSchema),
  extensions: v.optional(
    v.pipe(v.array(v.string()), about("Extensions", "URIs of extensions the message uses.", [[]])),
  ),
});

/** How a send in a file (shape A, an A2A 0.3 MessageSendParams) is answered: its `configuration`. */
export const SendConfigurationSchema = v.optional(
  v.pipe(
    v.looseObject({
      blocking: v.optional(
        v.pipe(
          v.boolean(),
          about("Blocking", "Wait for the task to end (or need input) before answering.", [true, false], {
            default: true,
          }),
        ),
      ),
      historyLength: v.optional(
        v.pipe(
          v.number(),
          v.integer(),
          v.minValue(0),
          about("History length", "How many messages of the task's history to return; absent: all.", [0, 10]),
        ),
      ),
      acceptedOutputModes: v.optional(
        v.pipe(v.array(v.string()), about("Accepted output modes", "MIME types the client accepts.", [["text/plain"]])),
      ),
    }),
    about("Configuration", "How the send is answered.", [{ blocking: false }]),
  ),
);

export const SendParamsSchema = v.looseObject({
  message: v.pipe(
    MessageSchema,
    about("Message", "Required. The A2A message to send; the envelope goes in its metadata.", [
      { role: "user", parts: [{ kind: "text", text: "Run the bounded plan adapter." }] },
    ]),
  ),
  configuration: SendConfigurationSchema,
  metadata: v.optional(MetadataSchema),
});

/** The two shapes of a file that hold a message (CONTRACT section 2) as they stand at its top, with "$schema". */
export const MessageFileSchema = v.looseObject({ $schema: SchemaKeySchema, ...MessageSchema.entries });
export const SendParamsFileSchema = v.looseObject({ $schema: SchemaKeySchema, ...SendParamsSchema.entries });

/** What is wrong with a send's `configuration` (a file's shape A, a 0.3 MessageSendParams), under /configuration. */
export function configurationProblems(configuration: unknown): Problem[] {
  const parsed = v.safeParse(SendConfigurationSchema, configuration);
  return parsed.success ? [] : problemsFromIssues(parsed.issues, "/configuration");
}

/** A 0.3 part as the core's, when it is one (the schema says what is wrong with one that is not). */
function partOf(part: unknown): Part | undefined {
  if (!isRecord(part)) return undefined;
  if (part.kind === "text") {
    if (typeof part.text !== "string") return undefined;
    // Not a 0.3 field, but read where a sender gives it: the echo takes only text/plain (CONTRACT 3.4).
    return { type: "text", text: part.text, ...stringField("mediaType", part.mediaType), ...partMetadata(part) };
  }
  if (part.kind === "file" && isRecord(part.file)) {
    const { uri, bytes, name, mimeType } = part.file;
    return {
      type: "file",
      ...stringField("uri", uri),
      ...stringField("bytes", bytes),
      ...stringField("name", name),
      ...stringField("mediaType", mimeType),
      ...partMetadata(part),
    };
  }
  if (part.kind === "data" && isRecord(part.data)) return { type: "data", data: part.data, ...partMetadata(part) };
  return undefined;
}

/** A text part's media type that is not a string: the core takes media types as strings. */
function mediaTypeProblems(raw: unknown, path: string): Problem[] {
  const parts = isRecord(raw) && Array.isArray(raw.parts) ? raw.parts : [];
  return parts.flatMap((part, index) =>
    isRecord(part) && part.kind === "text" && part.mediaType !== undefined && typeof part.mediaType !== "string"
      ? [
          {
            path: `${path}/parts/${index}/mediaType`,
            code: "wrong_type",
            message: `expected a media type (a string), found ${JSON.stringify(part.mediaType) ?? "nothing"}`,
          },
        ]
      : [],
  );
}

/** A 0.3 message (or a file's) at `path`, read into the core's message, with what its shape breaks. */
export function readMessage03(raw: unknown, path: string): MessageRead {
  const problems = [...wireProblems(MessageSchema, raw, path), ...mediaTypeProblems(raw, path)];
  if (!isRecord(raw)) return { seen: {}, problems };
  const seen: MessageSeen = sharedFields(raw);
  if (raw.role === "user") seen.role = "user";
  if (Array.isArray(raw.parts)) seen.parts = raw.parts.map(partOf);
  return { seen, problems };
}

export interface WirePart03 {
  kind: "text" | "file" | "data";
  [field: string]: unknown;
}

/** A core part as 0.3 writes it. */
function wirePart(part: Part): WirePart03 {
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  if (part.type === "text")
    return {
      kind: "text",
      text: part.text,
      ...(part.mediaType === undefined ? {} : { mediaType: part.mediaType }),
      ...metadata,
    };
  if (part.type === "data") return { kind: "data", data: part.data, ...metadata };
  const file = {
    ...stringField("uri", part.uri),
    ...stringField("bytes", part.bytes),
    ...stringField("name", part.name),
    ...stringField("mimeType", part.mediaType),
  };
  return { kind: "file", file, ...metadata };
}

/** A core message as 0.3 writes it, without the ids its task gives it. */
export function wireMessage03(message: Message): {
  role: "user";
  parts: WirePart03[];
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
} {
  const { referenceTaskIds } = message;
  return {
    role: message.role,
    parts: message.parts.map(wirePart),
    ...writtenFields(message),
    ...(referenceTaskIds ? { referenceTaskIds } : {}),
  };
}
