// A2A 1.0 JSON-RPC errors (CONTRACT 7.5): `data` is an array of typed google.rpc details.
import assert from "node:assert/strict";
import type { RpcError, Wire } from "./wire.js";

export const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
export const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";
export const A2A_DOMAIN = "a2a-protocol.org";
export const OUR_DOMAIN = "agentic-sandbox.aiwg.io";

export interface DetailsV1 {
  info: { reason: string; domain: string; metadata: Record<string, string> };
  /** The BadRequest's field violations, or undefined when there is no BadRequest. */
  violations: Array<{ field: string; description: string; reason: string }> | undefined;
}

/**
 * Checks a 1.0 error: its code, `data` an array of well-formed details with exactly one ErrorInfo of `reason` and
 * `domain` (string metadata only) and at most one BadRequest; returns them.
 */
export function assertErrorV1(error: RpcError | undefined, code: number, reason: string, domain = A2A_DOMAIN) {
  assert.ok(error, "an error answer");
  const text = JSON.stringify(error);
  assert.equal(error.code, code, text);
  assert.equal(typeof error.message, "string", text);
  assert.ok(Array.isArray(error.data), `data is an array of details: ${text}`);
  const details = error.data as Wire[];
  const infos = details.filter((detail) => detail["@type"] === ERROR_INFO);
  const bad = details.filter((detail) => detail["@type"] === BAD_REQUEST);
  assert.equal(infos.length, 1, `one ErrorInfo: ${text}`);
  assert.ok(bad.length <= 1, `at most one BadRequest: ${text}`);
  assert.equal(infos.length + bad.length, details.length, `only known detail types: ${text}`);
  const info = infos[0];
  assert.deepEqual(Object.keys(info).sort(), ["@type", "domain", "metadata", "reason"], text);
  assert.equal(info.reason, reason, text);
  assert.equal(info.domain, domain, text);
  for (const value of Object.values(info.metadata)) assert.equal(typeof value, "string", `metadata strings: ${text}`);
  const violations = bad[0]?.fieldViolations as DetailsV1["violations"];
  for (const violation of violations ?? []) {
    assert.deepEqual(Object.keys(violation).sort(), ["description", "field", "reason"], text);
    for (const value of Object.values(violation)) assert.equal(typeof value, "string", text);
  }
  return { info, violations } as DetailsV1;
}
