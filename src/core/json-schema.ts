// The envelope's JSON Schema, generated from the very valibot schema the validator uses.
import { toJsonSchema } from "@valibot/to-json-schema";
import { EnvelopeSchema, MAX_REQUEST_BYTES } from "./envelope-schema.js";
import { ADAPTER_URI } from "./uris.js";

export function envelopeJsonSchema(): Record<string, unknown> {
  const schema = toJsonSchema(EnvelopeSchema, {
    target: "draft-2020-12",
    // A string of at most N bytes has at most N characters: the looser bound is the one JSON Schema can say.
    overrideAction: ({ valibotAction }) =>
      valibotAction.type === "max_bytes" ? { maxLength: MAX_REQUEST_BYTES } : undefined,
  });
  return {
    ...schema,
    $id: `${ADAPTER_URI}/envelope.schema.json`,
    title: "adapter-command/v1 envelope",
    description: `The value at Message.metadata["${ADAPTER_URI}"]`,
  };
}
