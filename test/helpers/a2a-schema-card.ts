// The A2A 1.0 JSON Schema checks the HTTP tests use (definitions by name, the card with its 0.3 fields); test/helpers/a2a-schema.ts has the stdio tests' checks.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const bundle = JSON.parse(readFileSync(new URL("../fixtures/a2a-1.0/a2a.json", import.meta.url), "utf8")) as {
  definitions: Record<string, Record<string, unknown>>;
};

const GOOGLE = new Set(["Struct", "Timestamp", "Value"]);
const BASE = "https://a2a-protocol.org/schemas/";

/**
 * The definitions refer to each other by file name (`lf.a2a.v1.Task.jsonschema.json`), so each is added on its own
 * with an `$id` ending in that name (the definition's name without spaces) and without its `$schema`.
 */
const idOf = (name: string) => {
  const compact = name.replace(/ /g, "");
  return `${BASE}${GOOGLE.has(compact) ? "google.protobuf" : "lf.a2a.v1"}.${compact}.jsonschema.json`;
};

const ajv = new Ajv2020.default({ allErrors: true, strict: false });
addFormats.default(ajv);
for (const [name, definition] of Object.entries(bundle.definitions)) {
  const { $schema: _, ...schema } = definition;
  ajv.addSchema({ ...schema, $id: idOf(name) });
}

const compiled = new Map<string, ValidateFunction>();

/** The definition names used below: "Task", "Message", "Stream Response", "Send Message Response", "Agent Card"... */
export type Definition =
  | "Task"
  | "Message"
  | "Stream Response"
  | "Send Message Response"
  | "List Tasks Response"
  | "Agent Card";

/** Asserts that `value` is a valid `definition` and has no `kind` key anywhere. */
export function assertA2a(definition: Definition, value: unknown): void {
  let validate = compiled.get(definition);
  if (!validate) {
    validate = ajv.getSchema(idOf(definition)) as ValidateFunction;
    compiled.set(definition, validate);
  }
  assert.ok(
    validate(value),
    `not a valid A2A 1.0 ${definition}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`,
  );
  assertNoKind(value);
}

/** Asserts that no object inside `value` has a `kind` key, outside `metadata` objects (which hold anything). */
export function assertNoKind(value: unknown, path = ""): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => {
      assertNoKind(item, `${path}/${i}`);
    });
    return;
  }
  if (typeof value !== "object" || value === null) return;
  for (const [key, inner] of Object.entries(value)) {
    assert.notEqual(key, "kind", `a "kind" key at ${path || "/"} in ${JSON.stringify(value).slice(0, 500)}`);
    if (key !== "metadata") assertNoKind(inner, `${path}/${key}`);
  }
}

/** The 1.0 card without the three 0.3 fields CONTRACT 8.2 adds to it, as the schema knows it. */
export function card10(card: Record<string, unknown>): Record<string, unknown> {
  const { url: _url, preferredTransport: _transport, protocolVersion: _version, ...rest } = card;
  return rest;
}
