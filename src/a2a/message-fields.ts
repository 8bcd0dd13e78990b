// What both families' codecs do alike with a message: read the fields they share into the core's message, check the
// wire shape with the family's schema, and write the shared fields back (docs/architecture.md, "The codecs").
import * as v from "valibot";
import { isRecord } from "../core/envelope/json-value.js";
import type { Message, MessageSeen, Metadata } from "../core/envelope/message.js";
import { type Problem, problemsFromIssues } from "../core/envelope/problems.js";

/** The fields both families name alike, as far as they hold the right type (the schema reports the others). */
export function sharedFields(message: Record<string, unknown>): MessageSeen {
  const seen: MessageSeen = {};
  if (typeof message.messageId === "string") seen.messageId = message.messageId;
  if (typeof message.contextId === "string") seen.contextId = message.contextId;
  if (typeof message.taskId === "string") seen.taskId = message.taskId;
  if (isRecord(message.metadata)) seen.metadata = message.metadata;
  const extensions = strings(message.extensions);
  if (extensions) seen.extensions = extensions;
  const referenceTaskIds = strings(message.referenceTaskIds);
  if (referenceTaskIds) seen.referenceTaskIds = referenceTaskIds;
  return seen;
}

const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;

/** A part's metadata, when it is an object. */
export const partMetadata = (part: Record<string, unknown>): { metadata?: Metadata } =>
  isRecord(part.metadata) ? { metadata: part.metadata } : {};

/** `{ [key]: value }` when `value` is a string, else nothing. */
export const stringField = <K extends string>(key: K, value: unknown): { [P in K]?: string } =>
  (typeof value === "string" ? { [key]: value } : {}) as { [P in K]?: string };

/**
 * What `schema` finds wrong with the message at `path` (a JSON Pointer into the request or file). A missing message
 * is reported as its parent's missing field ("missing required field "message""), as a schema of the whole would.
 */
export function wireProblems(schema: v.GenericSchema, raw: unknown, path: string): Problem[] {
  const at = path.lastIndexOf("/");
  const parsed =
    raw === undefined && at >= 0
      ? v.safeParse(v.looseObject({ [path.slice(at + 1)]: schema }), {})
      : v.safeParse(schema, raw);
  if (parsed.success) return [];
  return problemsFromIssues(parsed.issues, raw === undefined && at >= 0 ? path.slice(0, at) : path);
}

/** The fields of a core message every family writes back beside its role and parts. */
export function writtenFields(message: Message): { metadata?: Metadata; extensions?: string[] } {
  return {
    ...(message.metadata ? { metadata: message.metadata } : {}),
    ...(message.extensions ? { extensions: message.extensions } : {}),
  };
}
