// The adapter-command/v1 envelope as one valibot schema: the validator and `adapter-command schema` both use it.
import * as v from "valibot";
import { ADAPTER_NAME, MODES, REQUEST_ROOTS, RUNNER_PATH } from "./uris.js";

export const DEFAULT_TIMEOUT_SECONDS = 300;
export const MAX_TIMEOUT_SECONDS = 900;
export const MAX_REQUEST_BYTES = 1024;

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** Each REQUEST rule is a regex (so it also lands in the JSON Schema) with a stable code and a plain message. */
export const REQUEST_RULES = [
  {
    code: "request_absolute",
    regex: /^(?!\/)/,
    message: "expected a relative path, found one that starts with /",
  },
  {
    code: "request_backslash",
    regex: /^[^\\]*$/,
    message: "expected / as the only separator, found a backslash",
  },
  {
    code: "request_control_character",
    // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
    regex: /^[^\u0000-\u001f\u007f-\u009f]*$/,
    message: "expected printable characters only, found NUL or another control character",
  },
  {
    code: "request_bad_segment",
    // An absolute path is reported as such; its leading empty segment is not reported twice.
    regex: /^(?:$|\/?(?!(?:[\s\S]*\/)?\.{0,2}(?:\/|$)))/,
    message: 'expected path segments with names, found an empty, "." or ".." segment',
  },
  {
    code: "request_outside_allowed",
    regex: new RegExp(`^(?:$|(?:${REQUEST_ROOTS.map(escapeRegex).join("|")})[^/])`),
    message: `expected a path below ${REQUEST_ROOTS.join(" or ")}`,
  },
] as const;

const [absolute, backslash, control, segment, outside] = REQUEST_RULES;

export const RequestPathSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxBytes(MAX_REQUEST_BYTES),
  v.regex(absolute.regex),
  v.regex(backslash.regex),
  v.regex(control.regex),
  v.regex(segment.regex),
  v.regex(outside.regex),
);

export const COMMAND_PREFIX = ["node", RUNNER_PATH, "--request"] as const;

export const EnvelopeSchema = v.strictObject({
  adapter: v.literal(ADAPTER_NAME),
  mode: v.picklist(MODES),
  command: v.strictTuple([
    v.literal(COMMAND_PREFIX[0]),
    v.literal(COMMAND_PREFIX[1]),
    v.literal(COMMAND_PREFIX[2]),
    RequestPathSchema,
  ]),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL can never be part of a path
  working_dir: v.optional(v.pipe(v.string(), v.regex(/^[^\u0000]*$/))),
  timeout_seconds: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_TIMEOUT_SECONDS)),
    DEFAULT_TIMEOUT_SECONDS,
  ),
  input_mode: v.optional(v.literal("text-line")),
});

export type Envelope = v.InferOutput<typeof EnvelopeSchema>;

const TextPartSchema = v.looseObject({
  kind: v.literal("text"),
  text: v.string(),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});
const FilePartSchema = v.looseObject({ kind: v.literal("file"), file: v.looseObject({}) });
const DataPartSchema = v.looseObject({ kind: v.literal("data"), data: v.record(v.string(), v.unknown()) });

export const MessageSchema = v.looseObject({
  kind: v.optional(v.literal("message")),
  role: v.literal("user"),
  parts: v.array(v.variant("kind", [TextPartSchema, FilePartSchema, DataPartSchema])),
  messageId: v.optional(v.string()),
  contextId: v.optional(v.string()),
  taskId: v.optional(v.string()),
  metadata: v.optional(v.record(v.string(), v.unknown())),
  extensions: v.optional(v.array(v.string())),
});

export type Message = v.InferOutput<typeof MessageSchema>;

export const SendParamsSchema = v.looseObject({
  message: MessageSchema,
  configuration: v.optional(
    v.looseObject({
      blocking: v.optional(v.boolean()),
      historyLength: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
      acceptedOutputModes: v.optional(v.array(v.string())),
    }),
  ),
  metadata: v.optional(v.record(v.string(), v.unknown())),
});

export type SendParams = v.InferOutput<typeof SendParamsSchema>;
