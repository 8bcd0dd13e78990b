// The envelope's JSON Schema, generated from the very valibot schema the validator uses.
import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import { EnvelopeSchema, MAX_REQUEST_BYTES, REQUEST_RULES } from "./envelope-schema.js";
import { ADAPTER_URI } from "./uris.js";

const isRequestRule = (requirement: unknown) => REQUEST_RULES.some((rule) => rule.regex === requirement);

export function envelopeJsonSchema(): Record<string, unknown> {
  const schema = toJsonSchema(EnvelopeSchema, {
    target: "draft-2020-12",
    overrideAction: ({ valibotAction, jsonSchema }) => {
      // A string of at most N bytes has at most N characters: the looser bound is the one JSON Schema can say.
      if (valibotAction.type === "max_bytes") return { ...jsonSchema, maxLength: MAX_REQUEST_BYTES };
      // JSON Schema allows one pattern a schema: each REQUEST rule becomes a pattern of its own under allOf.
      if (
        valibotAction.type === "regex" &&
        "requirement" in valibotAction &&
        isRequestRule(valibotAction.requirement)
      ) {
        const { pattern: _own, ...rest } = jsonSchema;
        const source = (valibotAction.requirement as RegExp).source;
        return { ...rest, allOf: [...((rest.allOf as JsonSchema[] | undefined) ?? []), { pattern: source }] };
      }
      return undefined;
    },
  });
  return {
    ...schema,
    $id: `${ADAPTER_URI}/envelope.schema.json`,
    title: "adapter-command/v1 envelope",
    description: `The value at Message.metadata["${ADAPTER_URI}"]`,
  };
}
