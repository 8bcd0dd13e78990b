// Push notification configs on the wire (CONTRACT 9.3): 1.0 TaskPushNotificationConfig `{ id, taskId, url, token?,
// authentication? { scheme, credentials? } }`, and 0.3 `{ taskId, pushNotificationConfig: { id, url, token?,
// authentication? { schemes, credentials? } } }`. Reading checks every field that becomes an HTTP header: nothing
// that could end a header line or start another (CR, LF and the other control characters) is accepted.
import { isRecord } from "../../core/envelope/json-value.js";
import { shown } from "../../core/envelope/problems.js";
import type { PushConfigRecord } from "../../core/push-configs.js";
import { camelKeys, invalidParams } from "../decode.js";

export type Family = PushConfigRecord["family"];

/** A config as asked for, its fields checked, before its URL's host is. */
export interface ConfigRequest {
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

const MAX_ID = 200;
const MAX_SECRET = 4096;
/** RFC 9110 token characters: an authentication scheme is one token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Printable ASCII: what a header value may carry as it is. */
const PRINTABLE = /^[\x20-\x7e]*$/;

function refuse(path: string, message: string, code = "invalid_value"): never {
  throw invalidParams([{ path, code, message }]);
}

function optionalText(value: unknown, path: string, max: number, what: string): string | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value !== "string") refuse(path, `expected ${what} (a string), found ${shown(value)}`, "wrong_type");
  if (value.length > max) refuse(path, `expected ${what} of at most ${max} characters, found ${value.length}`);
  if (!PRINTABLE.test(value)) {
    const bad = [...value].find((c) => !PRINTABLE.test(c)) as string;
    const code = bad.codePointAt(0) as number;
    const name = code < 0x20 || code === 0x7f ? "a control character" : "a character outside printable ASCII";
    refuse(
      path,
      `expected ${what} in printable ASCII, found ${name} (U+${code.toString(16).toUpperCase().padStart(4, "0")}): it would go into an HTTP header`,
    );
  }
  return value;
}

function authenticationOf(value: unknown, path: string, family: Family): ConfigRequest["authentication"] {
  if (value === undefined || value === null) return undefined;
  if (!isRecord(value)) refuse(path, `expected authentication (an object), found ${shown(value)}`, "wrong_type");
  let scheme: unknown;
  let schemePath: string;
  if (family === "0.3") {
    const schemes = value.schemes;
    if (!Array.isArray(schemes) || schemes.length === 0)
      refuse(`${path}/schemes`, `expected schemes (a non-empty array of strings), found ${shown(schemes)}`);
    scheme = schemes[0];
    schemePath = `${path}/schemes/0`;
  } else {
    scheme = value.scheme;
    schemePath = `${path}/scheme`;
  }
  if (typeof scheme !== "string")
    refuse(schemePath, `expected scheme (a string such as "Bearer"), found ${shown(scheme)}`, "wrong_type");
  if (scheme.length > 64 || !TOKEN.test(scheme))
    refuse(
      schemePath,
      `expected scheme to be one HTTP token such as "Bearer" (no spaces or control characters), found ${JSON.stringify(scheme.slice(0, 80))}`,
    );
  const credentials = optionalText(value.credentials, `${path}/credentials`, MAX_SECRET, "credentials");
  return credentials === undefined ? { scheme } : { scheme, credentials };
}

/** The config fields of `value` (a 1.0 TaskPushNotificationConfig or a 0.3 PushNotificationConfig) at `path`. */
export function configRequestOf(value: unknown, path: string, family: Family): ConfigRequest {
  if (!isRecord(value))
    refuse(path, `expected a push notification config (an object), found ${shown(value)}`, "wrong_type");
  const object = family === "1.0" ? camelKeys(value) : value;
  if (typeof object.url !== "string" || object.url === "")
    refuse(
      `${path}/url`,
      `expected url (the webhook's http:// or https:// URL), found ${shown(object.url)}`,
      "missing_field",
    );
  const request: ConfigRequest = { url: object.url };
  const id = optionalText(object.id, `${path}/id`, MAX_ID, "id");
  if (id !== undefined) {
    if (/[\s/]/.test(id)) refuse(`${path}/id`, "expected id without spaces or slashes (it names a REST path segment)");
    request.id = id;
  }
  const token = optionalText(object.token, `${path}/token`, MAX_SECRET, "token");
  if (token !== undefined) request.token = token;
  const authentication = authenticationOf(object.authentication, `${path}/authentication`, family);
  if (authentication) request.authentication = authentication;
  return request;
}

/** The task id a request names: `taskId` (1.0; also `task_id`) or `id` (0.3 get, list, delete). */
export function taskIdOf(params: Record<string, unknown>, field: string): string {
  const value = params[field];
  if (typeof value !== "string" || value === "")
    refuse(`/${field}`, `expected ${field} (the task's id), found ${shown(value)}`, "missing_field");
  return value;
}

export function requireParams(params: unknown, family: Family): Record<string, unknown> {
  if (!isRecord(params)) refuse("", `expected an object, found ${shown(params)}`, "wrong_type");
  return family === "1.0" ? camelKeys(params) : params;
}

/** The 1.0 TaskPushNotificationConfig of a stored config. */
export function config10(config: PushConfigRecord): Record<string, unknown> {
  const wire: Record<string, unknown> = { id: config.id, taskId: config.taskId, url: config.url };
  if (config.token !== undefined) wire.token = config.token;
  if (config.authentication) wire.authentication = { ...config.authentication };
  return wire;
}

/** The 0.3 TaskPushNotificationConfig of a stored config. */
export function config03(config: PushConfigRecord): Record<string, unknown> {
  const inner: Record<string, unknown> = { id: config.id, url: config.url };
  if (config.token !== undefined) inner.token = config.token;
  if (config.authentication) {
    const { scheme, credentials } = config.authentication;
    inner.authentication = credentials === undefined ? { schemes: [scheme] } : { schemes: [scheme], credentials };
  }
  return { taskId: config.taskId, pushNotificationConfig: inner };
}
