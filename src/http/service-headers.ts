// A2A service parameters over HTTP (CONTRACT 7.6): `A2A-Version` as a header or a query parameter, and
// `A2A-Extensions` (also `X-A2A-Extensions`, which 0.3 clients send); the activated extensions are echoed in the
// answer's `A2A-Extensions` header.
import type { Context } from "hono";
import { recognisedExtensions, type ServiceParams } from "../a2a/service-params.js";
import type { CallContext } from "../operations/context.js";
import { headerOf } from "./request-headers.js";

export function serviceParamsOf(c: Context): ServiceParams {
  const params: ServiceParams = {};
  const asked = [headerOf(c, "a2a-extensions"), headerOf(c, "x-a2a-extensions")].filter((v) => v !== undefined);
  if (asked.length > 0) params.extensions = asked.join(",");
  const version = headerOf(c, "a2a-version") ?? c.req.query("A2A-Version");
  if (version !== undefined) params.version = version;
  return params;
}

/** Sets the `A2A-Extensions` answer header to the recognised extensions the request activated. */
export function echoExtensions(c: Context, params: ServiceParams): void {
  const activated = recognisedExtensions(params.extensions);
  if (activated.length > 0) c.header("A2A-Extensions", activated.join(", "));
}

/** A kept first answer given again says so (idempotency/v1, CONTRACT 9.1); absent otherwise. */
export function markReplayed(c: Context, context: CallContext): void {
  if (context.replayed) c.header("Idempotent-Replayed", "true");
}
