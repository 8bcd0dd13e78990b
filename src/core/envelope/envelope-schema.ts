// The adapter-command/v1 envelope as one valibot schema: the validator and `adapter-command schema` both use it.
import * as v from "valibot";
import { ADAPTER_NAME, ADAPTER_URI, MODES, REQUEST_ROOTS, RUNNER_PATH } from "../uris.js";

const DEFAULT_TIMEOUT_SECONDS = 300;
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

/**
 * What `adapter-command schema` shows an editor for a field: a title, a description, examples and, where a
 * missing field means a value, that value as `default` (a default the runtime does not apply would mislead).
 */
export const about = <T>(
  title: string,
  description: string,
  examples: readonly unknown[],
  more: { default?: unknown } = {},
) => v.metadata<T, Record<string, unknown>>({ title, description, examples, ...more });

export const EXAMPLE_REQUEST = ".aiwg/ops/runs/request.json";

const RequestPathSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxBytes(MAX_REQUEST_BYTES),
  v.regex(absolute.regex),
  v.regex(backslash.regex),
  v.regex(control.regex),
  v.regex(segment.regex),
  v.regex(outside.regex),
  about(
    "REQUEST",
    `The request file the runner reads, relative to the working directory: below ${REQUEST_ROOTS.join(" or ")}; no leading /, no backslash, no control character, no empty, "." or ".." segment; at most ${MAX_REQUEST_BYTES} bytes.`,
    [EXAMPLE_REQUEST, `${REQUEST_ROOTS[0]}examples/cycle-005-request.json`],
  ),
);

export const COMMAND_PREFIX = ["node", RUNNER_PATH, "--request"] as const;

export const EnvelopeSchema = v.strictObject({
  adapter: v.pipe(
    v.literal(ADAPTER_NAME),
    about("Adapter", `Required. The allowlisted adapter; adapter-command/v1 knows one: ${ADAPTER_NAME}.`, [
      ADAPTER_NAME,
    ]),
  ),
  mode: v.pipe(
    v.picklist(MODES),
    about(
      "Mode",
      `Required. What the runner is asked to do: ${MODES.join(" or ")}. The command sees it as AIWG_A2A_ADAPTER_MODE.`,
      [...MODES],
    ),
  ),
  command: v.pipe(
    v.strictTuple([
      v.pipe(v.literal(COMMAND_PREFIX[0]), about("Executable", "Always node: the Node.js running the tool.", ["node"])),
      v.pipe(
        v.literal(COMMAND_PREFIX[1]),
        about("Runner", "Always the runner of the working directory.", [COMMAND_PREFIX[1]]),
      ),
      v.pipe(v.literal(COMMAND_PREFIX[2]), about("Flag", "Always --request.", ["--request"])),
      RequestPathSchema,
    ]),
    about(
      "Command",
      `Required. Exactly four strings: ${COMMAND_PREFIX.join(", ")}, then REQUEST. Nothing else can be run, and no shell is involved.`,
      [[...COMMAND_PREFIX, EXAMPLE_REQUEST]],
    ),
  ),
  working_dir: v.optional(
    v.pipe(
      v.string(),
      // biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL can never be part of a path
      v.regex(/^[^\u0000]*$/),
      about(
        "Working directory",
        "Where the command runs, mapped onto the local workspace (--workspace, default the current directory): absent, empty or /workspace is the workspace itself; /workspace/SUB or a relative path is below it; an absolute path must be inside it. Nothing may resolve outside it, symbolic links included.",
        ["/workspace", "/workspace/project", "project"],
        { default: "/workspace" },
      ),
    ),
  ),
  timeout_seconds: v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.maxValue(MAX_TIMEOUT_SECONDS),
      about(
        "Timeout",
        `Seconds the command may run, a whole number from 1 to ${MAX_TIMEOUT_SECONDS}. At the deadline its process group gets SIGTERM, and SIGKILL 2 s later.`,
        [60, DEFAULT_TIMEOUT_SECONDS, MAX_TIMEOUT_SECONDS],
      ),
    ),
    DEFAULT_TIMEOUT_SECONDS,
  ),
  input_mode: v.optional(
    v.pipe(
      v.literal("text-line"),
      about(
        "Input mode",
        "text-line: a prompt the command prints on its last output line (such as [y/N]) becomes input-required and can be answered (hitl-prompt/v1). Absent: output is never taken for a prompt.",
        ["text-line"],
      ),
    ),
  ),
});

export type Envelope = v.InferOutput<typeof EnvelopeSchema>;

/**
 * Message.metadata (and the send params' metadata): any keys. The JSON Schema adds what the analysis checks
 * around it: the envelope under ADAPTER_URI, and no key that is almost ADAPTER_URI (src/core/envelope/json-schema.ts).
 */
export const MetadataSchema = v.pipe(
  v.record(v.string(), v.unknown()),
  about("Metadata", "Extension data by URI. The adapter-command/v1 envelope sits under its URI, spelled exactly.", [
    { [ADAPTER_URI]: { adapter: ADAPTER_NAME, mode: "plan", command: [...COMMAND_PREFIX, EXAMPLE_REQUEST] } },
  ]),
);

/** A file's top-level "$schema" (CONTRACT section 2): allowed in every shape, ignored, so an editor can bind it. */
export const SchemaKeySchema = v.optional(
  v.pipe(
    v.string(),
    about(
      "JSON Schema",
      "The schema an editor checks this file against (adapter-command schema); ignored by the tool.",
      ["./node_modules/adapter-command/schema/adapter-command.schema.json"],
    ),
  ),
);

/** The three shapes of a file (CONTRACT section 2) as they stand at its top, where "$schema" may be. */
export const EnvelopeFileSchema = v.strictObject({ $schema: SchemaKeySchema, ...EnvelopeSchema.entries });
