// A2A service parameters (CONTRACT 5.2, 7.6): which extensions a request activates, and which version it asks for.

import { isRecord } from "../core/envelope/json-value.js";
import { CoreError } from "../core/errors.js";
import { ADAPTER_URI, HITL_URI, IDEMPOTENCY_URI, RUNTIME_URI } from "../core/uris.js";

export const SERVICE_PARAMETERS = "a2a-service-parameters";
const RECOGNISED = [ADAPTER_URI, HITL_URI, RUNTIME_URI, IDEMPOTENCY_URI];

export type Family = "0.3" | "1.0";

/** Service parameters a binding found: HTTP headers, or `params.metadata["a2a-service-parameters"]` on stdio. */
export interface ServiceParams {
  extensions?: string;
  version?: string;
}

/** The recognised URIs in an `A2A-Extensions` value (comma-separated, trimmed, compared case-insensitively). */
export function recognisedExtensions(header: string | undefined): string[] {
  if (typeof header !== "string") return [];
  const asked = header.split(",").map((uri) => uri.trim().toLowerCase());
  return RECOGNISED.filter((uri) => asked.includes(uri.toLowerCase()));
}

/** Service parameters carried in a request's params (no headers on stdio); header names in any case. */
export function paramsServiceParameters(params: unknown): ServiceParams {
  const metadata = isRecord(params) ? params.metadata : undefined;
  const service = isRecord(metadata) ? metadata[SERVICE_PARAMETERS] : undefined;
  if (!isRecord(service)) return {};
  const found: ServiceParams = {};
  for (const [key, value] of Object.entries(service)) {
    if (typeof value !== "string") continue;
    const name = key.toLowerCase();
    if (name === "a2a-extensions") found.extensions = value;
    else if (name === "a2a-version") found.version = value;
  }
  return found;
}

/** The extensions activated by `params.metadata["a2a-service-parameters"]["A2A-Extensions"]` that we recognise. */
export function activatedExtensions(params: unknown): string[] {
  return recognisedExtensions(paramsServiceParameters(params).extensions);
}

const VERSIONS: Record<Family, RegExp> = { "0.3": /^0\.3(?:\.\d+)?$/, "1.0": /^1\.0(?:\.\d+)?$/ };

/** A missing version is no error (the method name decides); another, or the other family's, is -32009. */
export function checkVersion(version: string | undefined, family: Family): void {
  if (version === undefined || version.trim() === "") return;
  if (VERSIONS[family].test(version.trim())) return;
  const known = VERSIONS["0.3"].test(version.trim()) || VERSIONS["1.0"].test(version.trim());
  throw new CoreError(
    "version_not_supported",
    known
      ? `A2A-Version ${version} does not match this method, which is A2A ${family}`
      : `A2A-Version ${version} is not supported; expected 0.3 or 1.0`,
    { version },
  );
}
