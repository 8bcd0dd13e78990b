// Reads an input (send params, a bare message or a bare envelope) and decides how it dispatches, or why it can't.
import * as v from "valibot";
import { ADAPTER_URI } from "../uris.js";
import { keyMismatches } from "./envelope-key.js";
import { type Envelope, EnvelopeSchema, MetadataSchema, SchemaKeySchema } from "./envelope-schema.js";
import { jsonErrorOffset } from "./json-error-offset.js";
import { joinPointer, pointer } from "./json-pointer.js";
import { isRecord, MAX_NESTING, nestingDepth } from "./json-value.js";
import { type Message, type MessageRead, type MessageSeen, messageText, type Part, wellFormed } from "./message.js";
import { type Problem, problemsFromIssues, unknownField } from "./problems.js";
import { startLimitProblems } from "./start-limits.js";

export type { Envelope, Message, Problem };
export { messageText };

export type Analysis =
  | { valid: true; dispatch: "adapter-command"; envelope: Envelope; envelopePath: string; message?: Message }
  | { valid: true; dispatch: "echo"; message: Message }
  | { valid: false; dispatch?: "adapter-command" | "echo"; errors: Problem[]; refused?: Refused };

/**
 * An envelope that was refused, as the file has it: the checks that need the workspace (working_dir, the request's
 * place) still run on what of it they can read, so every problem is reported at once (src/core/envelope/workspace.ts).
 */
export interface Refused {
  raw: unknown;
  path: string;
}

/** The envelope of an analysis, valid or refused, for the workspace's checks. */
export function refusedOf(analysis: Analysis): Refused | undefined {
  if (analysis.valid) {
    return analysis.dispatch === "adapter-command"
      ? { raw: analysis.envelope, path: analysis.envelopePath }
      : undefined;
  }
  return analysis.refused;
}

export type Shape = "send-params" | "message" | "envelope";

/**
 * How the messages of input files are read and their send's own fields checked: by the codec of the shape files use
 * (CONTRACT section 2; src/a2a/input-file.ts), so the core reads no wire shape of its own.
 */
export interface FileFormat {
  /** Which of the three file shapes a value is (CONTRACT section 2). */
  shapeOf(value: Record<string, unknown>): Shape;
  /** The message at `path` (a JSON Pointer into the file), as the core reads it. */
  readMessage(raw: unknown, path: string): MessageRead;
  /** What is wrong with a send's `configuration` (shape A), with pointers under /configuration. */
  configurationProblems(configuration: unknown): Problem[];
}

/** Analyses any of the three file shapes. */
export function analyzeInput(value: unknown, format: FileFormat): Analysis {
  if (!isRecord(value)) {
    return invalid([
      {
        path: "",
        code: "wrong_type",
        message: `expected a JSON object (send params, a message or an envelope), found ${describeType(value)}`,
      },
    ]);
  }
  if (nestingDepth(value, MAX_NESTING) > MAX_NESTING) {
    return invalid([
      { path: "", code: "too_deep", message: `expected at most ${MAX_NESTING} levels of nesting, found more` },
    ]);
  }
  const shape = format.shapeOf(value);
  const schemaKey = schemaKeyProblems(value);
  if (shape === "envelope") {
    // A top-level "$schema" binds the file to `adapter-command schema` in an editor; it is not an envelope field.
    const { [SCHEMA_KEY]: _bound, ...envelope } = value;
    const analysis = analyzeEnvelope(envelope, "");
    return schemaKey.length === 0
      ? analysis
      : invalid([...schemaKey, ...errorsOf(analysis)], "adapter-command", refusedOf(analysis));
  }
  const analysis =
    shape === "send-params" ? analyzeSendParams(value, format) : analyzeMessage(format.readMessage(value, ""));
  // Envelope fields beside `message` or `parts` were meant as an envelope: that is an error, never an echo.
  const misplaced = misplacedEnvelopeFields(value, shape);
  if (misplaced.length === 0 && schemaKey.length === 0) return analysis;
  const dispatch = misplaced.length > 0 ? "adapter-command" : analysis.dispatch;
  return invalid([...schemaKey, ...misplaced, ...errorsOf(analysis)], dispatch, refusedOf(analysis));
}

/** Analyses send params: shape A of a file. */
export function analyzeSendParams(value: Record<string, unknown>, format: FileFormat): Analysis {
  return analyzeSend(
    { message: format.readMessage(value.message, "/message"), metadata: value.metadata },
    format.configurationProblems(value.configuration),
  );
}

/** The key an editor reads to find a file's JSON Schema (CONTRACT section 2): allowed at the top, as a string. */
export const SCHEMA_KEY = "$schema";

function schemaKeyProblems(value: Record<string, unknown>): Problem[] {
  if (!Object.hasOwn(value, SCHEMA_KEY)) return [];
  const parsed = v.safeParse(SchemaKeySchema, value[SCHEMA_KEY]);
  return parsed.success ? [] : problemsFromIssues(parsed.issues, pointer(SCHEMA_KEY));
}

const errorsOf = (analysis: Analysis): Problem[] => (analysis.valid ? [] : analysis.errors);

function misplacedEnvelopeFields(value: Record<string, unknown>, shape: "send-params" | "message"): Problem[] {
  const home = joinPointer(shape === "send-params" ? "/message/metadata" : "/metadata", ADAPTER_URI);
  const what = shape === "send-params" ? "send params" : "a message";
  return Object.keys(EnvelopeSchema.entries)
    .filter((key) => key in value)
    .map((key) => ({
      path: pointer(key),
      code: "envelope_misplaced",
      message: `expected envelope fields inside ${home}, found "${key}" at the top level of ${what}`,
    }));
}

/**
 * What the core reads of a send (src/a2a/requests.ts's SendRequest holds it, made by each family's codec): the
 * message as its codec read it, with what its wire shape breaks, and the request's own metadata, as sent, so that
 * every problem points where the client wrote it (`/message/...`, `/metadata/...`).
 */
export interface SendInput {
  message: MessageRead;
  metadata: unknown;
}

/**
 * Analyses a send as the core reads it. `sendProblems` are what the codec found wrong in the send's own fields
 * (its configuration): reported after the message's problems and before the metadata's, where a file's are.
 */
export function analyzeSend(input: SendInput, sendProblems: readonly Problem[] = []): Analysis {
  const metadata = v.safeParse(v.optional(MetadataSchema), input.metadata);
  const errors = [
    ...input.message.problems,
    ...sendProblems,
    ...(metadata.success ? [] : problemsFromIssues(metadata.issues, "/metadata")),
  ];
  const { seen } = input.message;
  const inMessageMetadata = envelopeAt(seen.metadata);
  const inParams = envelopeAt(input.metadata);
  const messagePath = joinPointer("/message/metadata", ADAPTER_URI);
  const paramsPath = joinPointer("/metadata", ADAPTER_URI);
  const checked = errors.length === 0 ? wellFormed(input.message) : undefined;
  const mismatches = [
    ...keyMismatches(seen.metadata, "/message/metadata"),
    ...keyMismatches(input.metadata, "/metadata"),
  ];
  errors.push(...mismatches);
  if (inMessageMetadata.present && inParams.present && !sameJson(inMessageMetadata.value, inParams.value)) {
    errors.push({
      path: paramsPath,
      code: "envelope_conflict",
      message: `expected one envelope, found two that differ (here and at ${messagePath})`,
    });
  }
  if (inMessageMetadata.present || inParams.present) {
    const [raw, path] = inMessageMetadata.present
      ? [inMessageMetadata.value, messagePath]
      : [inParams.value, paramsPath];
    errors.push(...startLimitProblems(seen, "/message"));
    return withEnvelope(raw, path, errors, checked);
  }
  if (mismatches.length > 0) return invalid(errors, "adapter-command");
  return echo(checked, seen, "/message", errors);
}

/** A bare message: shape B of a file. */
function analyzeMessage(read: MessageRead): Analysis {
  const errors = [...read.problems];
  const { seen } = read;
  const checked = errors.length === 0 ? wellFormed(read) : undefined;
  const found = envelopeAt(seen.metadata);
  const mismatches = keyMismatches(seen.metadata, "/metadata");
  errors.push(...mismatches);
  if (found.present) {
    errors.push(...startLimitProblems(seen, ""));
    return withEnvelope(found.value, joinPointer("/metadata", ADAPTER_URI), errors, checked);
  }
  if (mismatches.length > 0) return invalid(errors, "adapter-command");
  return echo(checked, seen, "", errors);
}

function analyzeEnvelope(value: unknown, path: string): Analysis {
  return withEnvelope(value, path, [], undefined);
}

function withEnvelope(raw: unknown, path: string, errors: Problem[], message: Message | undefined): Analysis {
  const parsed = v.safeParse(EnvelopeSchema, raw);
  if (!parsed.success) {
    const problems = problemsFromIssues(parsed.issues, path);
    errors.push(...problems, ...moreUnknownFields(raw, path, problems));
  }
  if (errors.length > 0 || !parsed.success) return invalid(errors, "adapter-command", { raw, path });
  return {
    valid: true,
    dispatch: "adapter-command",
    envelope: parsed.output,
    envelopePath: path,
    ...(message ? { message } : {}),
  };
}

/** valibot's strictObject stops at the first unknown key; every one of them is a problem to report. */
function moreUnknownFields(raw: unknown, path: string, reported: Problem[]): Problem[] {
  if (!isRecord(raw)) return [];
  const known = Object.keys(EnvelopeSchema.entries);
  const seen = new Set(reported.filter((p) => p.code === "unknown_field").map((p) => p.path));
  return Object.keys(raw)
    .filter((key) => !known.includes(key) && !seen.has(joinPointer(path, key)))
    .map((key) => unknownField(joinPointer(path, key), key));
}

function echo(message: Message | undefined, seen: MessageSeen, path: string, errors: Problem[]): Analysis {
  const parts = seen.parts;
  if (parts && parts.length === 0) {
    errors.push({
      path: `${path}${pointer("parts")}`,
      code: "echo_without_text",
      message: "expected at least one text part for the echo dispatch, found no parts",
    });
  }
  // The card's only input mode is text/plain: any other part is refused, with its pointer (CONTRACT 3.4).
  parts?.forEach((part, index) => {
    const found = unsupportedPart(part);
    if (found)
      errors.push({
        path: `${path}${pointer("parts")}/${index}`,
        code: "content_type_not_supported",
        message: `expected a text/plain part (the only input mode), found ${found}`,
      });
  });
  if (errors.length > 0 || !message) return invalid(errors, "echo");
  return { valid: true, dispatch: "echo", message };
}

/** What a part that the echo does not take is, in words; undefined for a text/plain part (or no part: its codec said why). */
function unsupportedPart(part: Part | undefined): string | undefined {
  if (!part) return undefined;
  if (part.type !== "text") {
    const type = part.type === "file" && part.mediaType !== undefined ? ` (${part.mediaType})` : "";
    return `a ${part.type} part${type}`;
  }
  if (part.mediaType === undefined) return undefined;
  const type = (part.mediaType.split(";", 1)[0] ?? "").trim().toLowerCase();
  return type === "text/plain" ? undefined : `a text part of media type ${JSON.stringify(part.mediaType)}`;
}

function envelopeAt(metadata: unknown): { present: boolean; value?: unknown } {
  if (!isRecord(metadata) || !(ADAPTER_URI in metadata)) return { present: false };
  return { present: true, value: metadata[ADAPTER_URI] };
}

function invalid(errors: Problem[], dispatch?: "adapter-command" | "echo", refused?: Refused): Analysis {
  return { valid: false, ...(dispatch ? { dispatch } : {}), errors, ...(refused ? { refused } : {}) };
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "undefined";
}

/** Parses JSON text; a syntax error becomes a problem with line and column. */
export function parseJsonText(text: string): { ok: true; value: unknown } | { ok: false; problem: Problem } {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return { ok: true, value: JSON.parse(body) };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    let offset = jsonErrorOffset(body) ?? body.length;
    // A comma after the last member is the commonest slip, and JSON.parse words it poorly at the closing bracket:
    // it is reported at the comma, in words.
    const comma = trailingComma(body, offset);
    if (comma !== undefined) offset = comma.at;
    const before = body.slice(0, offset);
    const line = before.split("\n").length;
    // In characters, as an editor counts them: an emoji is one column, not two UTF-16 units.
    const column = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
    const reason = detail
      .replace(/\s*in JSON at position \d+.*$/s, "")
      .replace(/ at position \d+.*$/s, "") // "… after JSON at position 3": line and column say where
      .replace(/, (?:\.\.\.)?".*" is not valid JSON$/s, "")
      .replace(/^JSON\.parse: /, "");
    const message = comma?.message ?? `expected valid JSON, found: ${reason}`;
    return { ok: false, problem: { path: "", code: "json_syntax", message, line, column } };
  }
}

/** The comma before a closing `}` or `]` at `offset`, if the error is that one. */
function trailingComma(text: string, offset: number): { at: number; message: string } | undefined {
  const close = text[offset];
  if (close !== "}" && close !== "]") return undefined;
  let at = offset - 1;
  while (at >= 0 && " \t\n\r".includes(text[at] as string)) at--;
  if (text[at] !== ",") return undefined;
  const what = close === "}" ? "another member" : "another value";
  return {
    at,
    message: `expected ${what} after this comma, found "${close}": JSON allows no comma after the last one`,
  };
}
