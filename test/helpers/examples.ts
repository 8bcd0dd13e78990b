// Reading the example envelope files the way a test needs them.
import assert from "node:assert/strict";
import { isRecord } from "../../src/core/envelope/json-value.js";
import { ADAPTER_URI } from "../../src/core/uris.js";

/** The envelope of an example file in any of the three shapes, or undefined for an echo message. */
export function envelopeOfFile(value: unknown): unknown {
  assert.ok(isRecord(value));
  if ("message" in value) {
    const message = value.message;
    const inMessage = isRecord(message) && isRecord(message.metadata) ? message.metadata[ADAPTER_URI] : undefined;
    return inMessage ?? (isRecord(value.metadata) ? value.metadata[ADAPTER_URI] : undefined);
  }
  if ("parts" in value || "role" in value) return isRecord(value.metadata) ? value.metadata[ADAPTER_URI] : undefined;
  return value;
}
