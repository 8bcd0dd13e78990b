// What the HTTP tests check on top of test/helpers/a2a-schema.ts: no `kind` outside `metadata`, and the card as the
// schema knows it (without the three 0.3 fields of CONTRACT 8.2).
import assert from "node:assert/strict";
import { assertA2a as assertValid, type DefinitionName } from "./a2a-schema.js";

export type Definition = DefinitionName;

/** Asserts that `value` is a valid `definition` and has no `kind` key anywhere outside `metadata`. */
export function assertA2a(definition: Definition, value: unknown): void {
  assertValid(definition, value);
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
