// hitl-prompt/v1's envelope.schema.json (test/fixtures/hitl), compiled once for the tests that check prompts.
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const schema = JSON.parse(readFileSync(new URL("../fixtures/hitl/envelope.schema.json", import.meta.url), "utf8"));
const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
const compiled = ajv.compile(schema as object);

/** The problems of a prompt envelope against envelope.schema.json, as text; [] when it is valid. */
export function promptEnvelopeProblems(value: unknown): string[] {
  if (compiled(value)) return [];
  return (compiled.errors ?? []).map((error) => `${error.instancePath || "/"} ${error.message}`);
}
