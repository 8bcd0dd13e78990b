// The extension URIs the scenarios name (the runtime's extension specs; CONTRACT 9 lists the same).
const BASE = "https://agentic-sandbox.aiwg.io/extensions";
export const ADAPTER = `${BASE}/adapter-command/v1`;
export const HITL = `${BASE}/hitl-prompt/v1`;
export const RUNTIME = `${BASE}/runtime/v1`;
export const IDEMPOTENCY = `${BASE}/idempotency/v1`;

/** RFC 9562 canonical form, any version. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A UUID of version 4 or 7 (runtime/v1 `instance_id`, idempotency/v1 §7.1 `messageId`). */
export const UUID_V4_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-[47][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
