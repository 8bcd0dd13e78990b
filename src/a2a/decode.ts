// Request checks both protocol versions share: params parsed with valibot into core errors whose problems point into
// `params` (CONTRACT 7.4 for ListTasks).
import * as v from "valibot";
import { closest } from "../core/edit-distance.js";
import { isRecord } from "../core/envelope/json-value.js";
import type { MessageRead } from "../core/envelope/message.js";
import { type Problem, problemsFromIssues, shown } from "../core/envelope/problems.js";
import { CoreError } from "../core/errors.js";
import { DEFAULT_PAGE_SIZE, decodePageToken, type ListQuery, MAX_PAGE_SIZE } from "../core/task/list-query.js";
import { TASK_STATES, type TaskState } from "../core/task/task.js";
import { configRequestOf } from "./push/config-wire.js";
import type { DecodedSend, GetRequest, ListRequest, SendRequest } from "./requests.js";
import { activatedExtensions, SERVICE_PARAMETERS } from "./service-params.js";

/** The same object with snake_case names also given as camelCase (a camelCase name already there wins). */
export function camelKeys(value: unknown): Record<string, unknown> {
  if (!isRecord(value)) return {};
  const out: Record<string, unknown> = { ...value };
  for (const [key, field] of Object.entries(value)) {
    if (!key.includes("_")) continue;
    const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    if (!(camel in out)) out[camel] = field;
    delete out[key];
  }
  return out;
}

export function invalidParams(errors: Problem[]): CoreError {
  const first = errors[0];
  return new CoreError(
    "invalid_params",
    `Invalid params: ${first ? `${first.message} at ${first.path || "/"}` : "malformed"}`,
    {
      errors,
    },
  );
}

type ParamsSchema = v.LooseObjectSchema<v.ObjectEntries, undefined>;

/**
 * The params as `schema` reads them, else invalid params with every problem a JSON Pointer into `params` (`/id`).
 * valibot reports a missing key under its object's type ("expected an object"); with every key present (undefined
 * when missing), each field's own schema says what it expected instead ("expected a string, found nothing").
 */
export function parseParams<S extends ParamsSchema>(schema: S, params: unknown): v.InferOutput<S> {
  const given = params ?? {};
  // valibot takes an array for an object too, and would only miss its keys.
  if (!isRecord(given))
    throw invalidParams([{ path: "", code: "wrong_type", message: `expected an object, found ${shown(given)}` }]);
  const keys = Object.fromEntries(Object.keys(schema.entries).map((key) => [key, undefined]));
  const parsed = v.safeParse(schema, { ...keys, ...given });
  if (parsed.success) return parsed.output;
  throw invalidParams(problemsFromIssues(parsed.issues, ""));
}

/** The state names a family takes: the 0.3 ones (`canceled`) or the 1.0 ones (`TASK_STATE_CANCELED`). */
function stateNames(stateOf: (name: string) => TaskState | undefined): string[] {
  return TASK_STATES.flatMap((state) =>
    [state, `TASK_STATE_${state.toUpperCase().replace("-", "_")}`].filter((name) => stateOf(name) === state),
  );
}

/** The family's name for a state given in the other family's spelling, another case, or a letter off. */
function stateNameMeant(found: string, stateOf: (name: string) => TaskState | undefined): string | undefined {
  const bare = found
    .replace(/^task_state_/i, "")
    .toLowerCase()
    .replace(/_/g, "-");
  const state = (TASK_STATES as readonly string[]).includes(bare) ? bare : closest(bare, TASK_STATES);
  return stateNames(stateOf).find((name) => stateOf(name) === state);
}

export function requireObject(params: unknown, what: string): Record<string, unknown> {
  if (isRecord(params)) return params;
  throw invalidParams([
    { path: "", code: "wrong_type", message: `expected ${what} (an object), found ${kind(params)}` },
  ]);
}

function kind(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "nothing";
  return Array.isArray(value) ? "an array" : `a ${typeof value}`;
}

const HistoryLength = v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)));

const GetSchema = v.looseObject({ id: v.string(), historyLength: HistoryLength });

export function getRequestOf(params: unknown): GetRequest {
  const { id, historyLength } = parseParams(GetSchema, params);
  return historyLength === undefined ? { id } : { id, historyLength };
}

/** One pageSize rule for every list, tasks and push configs alike: 1 to 100 (0 is refused, not "all"). */
export const PageSize = v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PAGE_SIZE)));

const ListSchema = v.looseObject({
  contextId: v.optional(v.string()),
  status: v.optional(v.string()),
  statusTimestampAfter: v.optional(v.string()),
  pageSize: PageSize,
  pageToken: v.optional(v.string()),
  historyLength: HistoryLength,
  includeArtifacts: v.optional(v.boolean()),
});

/** ListTasks params (camelCase) with `stateOf` naming the family's state names. */
export function listRequestOf(params: unknown, stateOf: (name: string) => TaskState | undefined): ListRequest {
  const parsed = parseParams(ListSchema, params);
  const query: ListQuery = { pageSize: parsed.pageSize ?? DEFAULT_PAGE_SIZE };
  if (parsed.contextId) query.contextId = parsed.contextId;
  if (parsed.status !== undefined && parsed.status !== "" && parsed.status !== "TASK_STATE_UNSPECIFIED") {
    const state = stateOf(parsed.status);
    if (!state) {
      const meant = stateNameMeant(parsed.status, stateOf);
      const hint = meant
        ? `; the name is "${meant}"`
        : `: one of ${stateNames(stateOf)
            .map((n) => `"${n}"`)
            .join(", ")}`;
      throw invalidParams([
        { path: "/status", code: "invalid_value", message: `expected a task state, found "${parsed.status}"${hint}` },
      ]);
    }
    query.state = state;
  }
  if (parsed.statusTimestampAfter !== undefined && parsed.statusTimestampAfter !== "") {
    const at = Date.parse(parsed.statusTimestampAfter);
    if (Number.isNaN(at) || !/^\d{4}-\d\d-\d\dT/.test(parsed.statusTimestampAfter))
      throw invalidParams([
        {
          path: "/statusTimestampAfter",
          code: "invalid_value",
          message: `expected an RFC 3339 timestamp, found "${parsed.statusTimestampAfter}"`,
        },
      ]);
    query.statusTimestampAfter = at;
  }
  if (parsed.pageToken !== undefined && parsed.pageToken !== "") {
    const after = decodePageToken(parsed.pageToken);
    if (!after)
      throw invalidParams([
        {
          path: "/pageToken",
          code: "invalid_value",
          message: "expected a pageToken from a previous page, found another string",
        },
      ]);
    query.after = after;
  }
  const request: ListRequest = { query, includeArtifacts: parsed.includeArtifacts === true };
  if (parsed.historyLength !== undefined) request.historyLength = parsed.historyLength;
  return request;
}

/** The fields each object of a send request has in a family (A2A 0.3 MessageSendParams, 1.0 SendMessageRequest). */
export interface SendFields {
  params: readonly string[];
  message: readonly string[];
  part: readonly string[];
  configuration: readonly string[];
}

/** A send's objects as its codec reads them: each with the names the codec takes (anything not an object as sent). */
export interface SendObjects {
  params: Record<string, unknown>;
  message: unknown;
  /** The message's parts, each as its codec reads it. */
  parts: unknown;
  configuration: unknown;
}

/** The fields of `value` its family defines; others dropped (a value that is not an object as it is). */
function definedFields(value: unknown, fields: readonly string[]): unknown {
  if (!isRecord(value)) return value;
  return Object.fromEntries(
    fields.filter((field) => Object.hasOwn(value, field)).map((field) => [field, value[field]]),
  );
}

/** The params of a decoded send as idempotency/v1 hashes them (CONTRACT 9.1). */
function hashedParams(objects: SendObjects, fields: SendFields): Record<string, unknown> {
  const hashed = definedFields(objects.params, fields.params) as Record<string, unknown>;
  if (isRecord(hashed.metadata)) {
    // Service parameters travel here on stdio and in headers on HTTP: they are not part of the request (9.1).
    const { [SERVICE_PARAMETERS]: _service, ...metadata } = hashed.metadata;
    if (Object.keys(metadata).length > 0) hashed.metadata = metadata;
    else delete hashed.metadata;
  }
  if (hashed.message !== undefined) {
    // message.messageId is the key, not part of the request: no family lists it among the hashed fields.
    const message = definedFields(objects.message, fields.message);
    if (isRecord(message) && Array.isArray(objects.parts))
      message.parts = objects.parts.map((part) => definedFields(part, fields.part));
    hashed.message = message;
  }
  if (hashed.configuration !== undefined)
    hashed.configuration = definedFields(objects.configuration, fields.configuration);
  return hashed;
}

/**
 * A send decoded once by its codec: `objectsOf` reads the params' objects (1.0 also under snake_case names), the hash
 * takes their `fields`, and `requestOf` makes the service's request of the same objects when it is first asked for.
 */
export function decodedSend(
  params: unknown,
  what: string,
  fields: SendFields,
  objectsOf: (params: Record<string, unknown>) => SendObjects,
  requestOf: (objects: SendObjects) => SendRequest,
): DecodedSend {
  const objects = isRecord(params) ? objectsOf(params) : undefined;
  let request: SendRequest | undefined;
  return {
    hashed: objects ? hashedParams(objects, fields) : params,
    request: () => {
      request ??= requestOf(objects ?? objectsOf(requireObject(params, what)));
      return request;
    },
  };
}

/** A send's fields as a family's codec read them, named for what they mean. */
export interface SendRead {
  message: MessageRead;
  metadata: unknown;
  /** What is wrong with the send's own fields (its configuration). */
  problems: Problem[];
  /** The send's params, where its service parameters are (src/a2a/service-params.ts). */
  params: Record<string, unknown>;
  returnImmediately: boolean;
  historyLength: unknown;
  /** The inline push config as sent, where it was, and in which family's shape. */
  push: { config: unknown; path: string; family: "0.3" | "1.0" };
}

/** The service's request of a send either family's codec read. */
export function sendRequest(read: SendRead): SendRequest {
  const request: SendRequest = {
    message: read.message,
    metadata: read.metadata,
    problems: read.problems,
    extensions: activatedExtensions(read.params),
    returnImmediately: read.returnImmediately,
  };
  if (typeof read.historyLength === "number") request.historyLength = read.historyLength;
  const { config, path, family } = read.push;
  if (config !== undefined && config !== null)
    request.push = { config: configRequestOf(config, path, family), family, path };
  return request;
}
