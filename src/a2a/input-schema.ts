// `adapter-command schema`: the JSON Schema of the input files, generated from the very valibot schemas the
// validator uses (src/core/envelope/envelope-schema.ts for the envelope, src/a2a/v0_3/message.ts for the message a file holds). The object schemas come from valibot; what the analysis checks
// across them (which shape a file is, where the envelope sits, the echo's text part, misplaced envelope fields,
// near-miss keys) is stated here with the same constants. What no JSON Schema can state (a repeated key, the
// joined text's size, an envelope given twice and different, what is on disk) only `validate` checks.
import { type ConversionConfig, type JsonSchema, toJsonSchema, toJsonSchemaDefs } from "@valibot/to-json-schema";
import { SCHEMA_KEY } from "../core/envelope/envelope.js";
import { nearMissPattern } from "../core/envelope/envelope-key.js";
import {
  EnvelopeFileSchema,
  EnvelopeSchema,
  MAX_REQUEST_BYTES,
  MetadataSchema,
  REQUEST_RULES,
} from "../core/envelope/envelope-schema.js";
import { ADAPTER_URI } from "../core/uris.js";
import { MessageFileSchema, SendParamsFileSchema } from "./v0_3/message.js";

const DRAFT = "https://json-schema.org/draft/2020-12/schema";
const isRequestRule = (requirement: unknown) => REQUEST_RULES.some((rule) => rule.regex === requirement);
const ref = (name: string) => ({ $ref: `#/$defs/${name}` });

/** The metadata record: any keys, the envelope under ADAPTER_URI, and no key that is almost ADAPTER_URI. */
const metadataJson = (jsonSchema: JsonSchema): JsonSchema => ({
  ...jsonSchema,
  properties: { [ADAPTER_URI]: ref("Envelope") },
  propertyNames: { anyOf: [{ const: ADAPTER_URI }, { not: { pattern: nearMissPattern() } }] },
});

const CONFIG: ConversionConfig = {
  target: "draft-2020-12",
  overrideAction: ({ valibotAction, jsonSchema }) => {
    // A string of at most N bytes has at most N characters: the looser bound is the one JSON Schema can say.
    if (valibotAction.type === "max_bytes") return { ...jsonSchema, maxLength: MAX_REQUEST_BYTES };
    // JSON Schema allows one pattern a schema: each REQUEST rule becomes a pattern of its own under allOf.
    if (valibotAction.type === "regex" && "requirement" in valibotAction && isRequestRule(valibotAction.requirement)) {
      const { pattern: _own, ...rest } = jsonSchema;
      const source = (valibotAction.requirement as RegExp).source;
      return { ...rest, allOf: [...((rest.allOf as JsonSchema[] | undefined) ?? []), { pattern: source }] };
    }
    return undefined;
  },
  overrideSchema: ({ valibotSchema, jsonSchema }) =>
    valibotSchema === MetadataSchema.pipe[0] ? metadataJson(jsonSchema) : undefined,
};

/** The bare envelope (shape C): what `schema --envelope` prints. */
export function envelopeJsonSchema(): Record<string, unknown> {
  const { $schema: _draft, ...schema } = toJsonSchema(EnvelopeFileSchema, CONFIG);
  return {
    $schema: DRAFT,
    $id: `${ADAPTER_URI}/envelope.schema.json`,
    title: "adapter-command/v1 envelope",
    description: `The value at Message.metadata["${ADAPTER_URI}"], or a file of its own (a bare envelope).`,
    ...schema,
  };
}

const ENVELOPE_FIELDS = Object.keys(EnvelopeSchema.entries);
/** A text/plain text part: the only part the echo takes (CONTRACT 3.4; mediaType compared without case). */
const TEXT_PART: JsonSchema = {
  type: "object",
  required: ["kind", "text"],
  properties: {
    kind: { const: "text" },
    text: { type: "string" },
    mediaType: { type: "string", pattern: "^[ \\t]*[Tt][Ee][Xx][Tt]/[Pp][Ll][Aa][Ii][Nn][ \\t]*(;.*)?$" },
  },
};
/** The echo's parts: at least one, each a text/plain text part. */
const ECHO_PARTS: JsonSchema = { type: "array", minItems: 1, items: TEXT_PART };
/** An object whose metadata holds the envelope. */
const holdsEnvelope: JsonSchema = {
  type: "object",
  required: ["metadata"],
  properties: { metadata: { type: "object", required: [ADAPTER_URI] } },
};

/** JSON Schema's if/then/else: `then` here is the keyword's name, not a thenable. */
function conditional(condition: JsonSchema, then: JsonSchema, otherwise?: JsonSchema): JsonSchema {
  return { if: condition, then, ...(otherwise ? { else: otherwise } : {}) };
}

/** Top-level envelope fields beside `message` or `parts` are refused (envelope_misplaced). */
const misplaced = Object.fromEntries(ENVELOPE_FIELDS.map((field) => [field, false]));

/** Shape B, a bare message: without an envelope, text/plain text parts only, at least one, for the echo. */
function messageFile(generated: JsonSchema): JsonSchema {
  return {
    ...generated,
    properties: { ...(generated.properties as Record<string, JsonSchema>), ...misplaced },
    ...conditional({ not: holdsEnvelope }, { type: "object", properties: { parts: ECHO_PARTS } }),
  };
}

/** Shape A, send params: the envelope in the message's metadata or in the params' own. */
function sendParamsFile(generated: JsonSchema): JsonSchema {
  const inMessage: JsonSchema = { type: "object", required: ["message"], properties: { message: holdsEnvelope } };
  return {
    ...generated,
    properties: { ...(generated.properties as Record<string, JsonSchema>), ...misplaced },
    ...conditional(
      { not: { anyOf: [holdsEnvelope, inMessage] } },
      {
        type: "object",
        properties: { message: { type: "object", properties: { parts: ECHO_PARTS } } },
      },
    ),
  };
}

/** A bare message, as `shapeOf` tells it: `parts`, `role` or `"kind": "message"` without `message`. */
const MESSAGE_SHAPE: JsonSchema = {
  type: "object",
  anyOf: [
    { type: "object", required: ["parts"] },
    { type: "object", required: ["role"] },
    { type: "object", required: ["kind"], properties: { kind: { const: "message" } } },
  ],
};

/** The three shapes of an input file, told apart as the analysis tells them (`shapeOf` in src/a2a/input-file.ts). */
export function inputJsonSchema(): Record<string, unknown> {
  const defs = toJsonSchemaDefs(
    {
      Envelope: EnvelopeSchema,
      SendParams: SendParamsFileSchema,
      Message: MessageFileSchema,
      BareEnvelope: EnvelopeFileSchema,
    },
    CONFIG,
  );
  return {
    $schema: DRAFT,
    $id: `${ADAPTER_URI}/adapter-command.schema.json`,
    title: "adapter-command/v1 input file",
    description: `What validate and run read: send params ({ "message": … }), a bare A2A message, or a bare envelope. The envelope is at message.metadata["${ADAPTER_URI}"]; a top-level "${SCHEMA_KEY}" is ignored.`,
    type: "object",
    ...conditional(
      { type: "object", required: ["message"] },
      ref("SendParams"),
      conditional(MESSAGE_SHAPE, ref("Message"), ref("BareEnvelope")),
    ),
    $defs: {
      ...defs,
      SendParams: sendParamsFile(defs.SendParams as JsonSchema),
      Message: messageFile(defs.Message as JsonSchema),
    },
  };
}
