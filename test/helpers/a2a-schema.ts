// A2A 1.0 wire objects checked against the A2A JSON Schema bundle (test/fixtures/a2a-1.0/a2a.json, CONTRACT 7.2).
// The bundle's definitions refer to each other by file name (`lf.a2a.v1.Task.jsonschema.json`,
// `google.protobuf.Struct.jsonschema.json`), so each definition is added on its own with an `$id` that ends in that
// name, and without its own `$schema`; then every reference resolves.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";

const BUNDLE = new URL("../fixtures/a2a-1.0/a2a.json", import.meta.url);
const BASE = "https://a2a-protocol.org/schemas/";
const PROTOBUF = new Set(["Struct", "Timestamp", "Value"]);

/** Names of the bundle's definitions, as it spells them ("Task", "Stream Response", "Agent Card"...). */
export type DefinitionName =
  | "Task"
  | "Task Status"
  | "Message"
  | "Part"
  | "Artifact"
  | "Stream Response"
  | "Send Message Response"
  | "List Tasks Response"
  | "Task Status Update Event"
  | "Task Artifact Update Event"
  | "Agent Card"
  | (string & {});

const fileOf = (name: string) =>
  `${PROTOBUF.has(name) ? "google.protobuf" : "lf.a2a.v1"}.${name.replaceAll(" ", "")}.jsonschema.json`;

function load() {
  const bundle = JSON.parse(readFileSync(BUNDLE, "utf8")) as { definitions: Record<string, Record<string, unknown>> };
  const ajv = new Ajv2020.default({ allErrors: true, strict: false });
  addFormats.default(ajv);
  for (const [name, definition] of Object.entries(bundle.definitions)) {
    const { $schema: _, ...schema } = definition;
    ajv.addSchema({ ...schema, $id: `${BASE}${fileOf(name)}` });
  }
  return { ajv, names: new Set(Object.keys(bundle.definitions)) };
}

let loaded: ReturnType<typeof load> | undefined;

/** The problems ajv finds in `value` as the definition `name`, as text; [] when it is valid. */
export function a2aProblems(name: DefinitionName, value: unknown): string[] {
  loaded ??= load();
  if (!loaded.names.has(name)) throw new Error(`a2a.json has no definition named "${name}"`);
  const validate = loaded.ajv.getSchema(`${BASE}${fileOf(name)}`);
  if (!validate) throw new Error(`cannot compile the definition "${name}"`);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(
    (error) => `${error.instancePath || "/"} ${error.message} ${JSON.stringify(error.params)}`,
  );
}

/** Fails unless `value` is valid as the A2A 1.0 definition `name`. */
export function assertA2a(name: DefinitionName, value: unknown, what = name): void {
  const problems = a2aProblems(name, value);
  assert.deepEqual(problems, [], `${what} is not a valid A2A 1.0 "${name}": ${JSON.stringify(value).slice(0, 600)}`);
}

/** The JSON Pointers of every `kind` or `final` key in `value`, at any depth, `metadata` objects included. */
export function zeroThreeKeys(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => zeroThreeKeys(item, `${path}/${index}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const here = `${path}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    return [...(key === "kind" || key === "final" ? [here] : []), ...zeroThreeKeys(item, here)];
  });
}

/** Fails when a 1.0 answer carries a 0.3 discriminator (`kind`) or stream flag (`final`) anywhere (CONTRACT 7.2). */
export function assertNoKindOrFinal(value: unknown, what = "the answer"): void {
  assert.deepEqual(zeroThreeKeys(value), [], `${what} carries 0.3 keys: ${JSON.stringify(value).slice(0, 600)}`);
}

/** The JSON Pointers of every `timestamp` that is not an RFC 3339 UTC time ending in `Z` (CONTRACT 7.2). */
export function nonUtcTimestamps(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((item, index) => nonUtcTimestamps(item, `${path}/${index}`));
  if (typeof value !== "object" || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => {
    const here = `${path}/${key}`;
    const bad = key === "timestamp" && !(typeof item === "string" && UTC.test(item));
    return [...(bad ? [here] : []), ...nonUtcTimestamps(item, here)];
  });
}

const UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Everything CONTRACT 7.2 asks of a 1.0 object: valid as `name`, no `kind`/`final`, UTC timestamps. */
export function assertV1(name: DefinitionName, value: unknown, what: string = name): void {
  assertA2a(name, value, what);
  assertNoKindOrFinal(value, what);
  assert.deepEqual(nonUtcTimestamps(value), [], `${what}: timestamps in UTC ending in Z`);
}

/** Fails unless `value` is a StreamResponse with exactly one of task, statusUpdate, artifactUpdate (CONTRACT 7.3). */
export function assertStreamResponse(value: unknown, what = "the stream item"): void {
  assertV1("Stream Response", value, what);
  const keys = Object.keys(value as object);
  assert.equal(keys.length, 1, `${what} has exactly one member: ${keys.join(", ")}`);
  assert.ok(["task", "statusUpdate", "artifactUpdate"].includes(keys[0] as string), `${what}: ${keys[0]}`);
}

/** The 1.0 card without the three 0.3 fields CONTRACT 8.2 adds to it, as the schema knows it. */
export function card10(card: Record<string, unknown>): Record<string, unknown> {
  const { url: _url, preferredTransport: _transport, protocolVersion: _version, ...rest } = card;
  return rest;
}
