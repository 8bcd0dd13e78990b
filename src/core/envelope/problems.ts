// Problems: what is wrong with an input, where (a JSON Pointer), under a stable code, in words.
import type * as v from "valibot";
import { closest } from "../edit-distance.js";
import { ADAPTER_NAME, MODES } from "../uris.js";
import { utf8Length } from "../utf8-length.js";
import { COMMAND_PREFIX, MAX_REQUEST_BYTES, MAX_TIMEOUT_SECONDS, REQUEST_RULES } from "./envelope-schema.js";
import { joinPointer } from "./json-pointer.js";

export interface Problem {
  path: string;
  code: string;
  message: string;
  line?: number;
  column?: number;
}

/**
 * Problems in the order of the text they point at (line, then column), as an editor lists them; those without a
 * place keep their order, after the rest. Stable, so problems at one place keep theirs.
 */
export function inTextOrder(problems: readonly Problem[]): Problem[] {
  const key = (problem: Problem) => [problem.line ?? Number.POSITIVE_INFINITY, problem.column ?? 0] as const;
  return [...problems].sort((a, b) => {
    const [lineA, columnA] = key(a);
    const [lineB, columnB] = key(b);
    return lineA === lineB ? columnA - columnB : lineA - lineB;
  });
}

const MAX_SHOWN = 80;

/** A value as the user wrote it, short enough for one line. */
export function shown(value: unknown): string {
  let text: string;
  if (value === undefined) text = "nothing";
  else if (typeof value === "string") text = JSON.stringify(value);
  else if (Array.isArray(value)) text = `an array of ${value.length}`;
  else if (value === null) text = "null";
  else if (typeof value === "object") text = "an object";
  // String(), not JSON.stringify: 1e400 parses to Infinity, which JSON.stringify would show as null.
  else text = `${typeof value} ${typeof value === "number" ? String(value) : JSON.stringify(value)}`;
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN - 1)}…` : text;
}

/** What a value is, in words: "an object", "a string (\"x\")". */
export function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value} (${shown(value)})`;
}

const EXPECTED_TYPE: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "a boolean",
  array: "an array",
  object: "an object",
  loose_object: "an object",
  strict_object: "an object",
  record: "an object",
  strict_tuple: "an array",
};

const ENVELOPE_FIELDS = ["adapter", "mode", "command", "working_dir", "timeout_seconds", "input_mode"];

/** What a required field holds, for the message about its absence. */
const FIELD_EXPECTED: Record<string, string> = {
  adapter: `"${ADAPTER_NAME}"`,
  mode: MODES.map((m) => `"${m}"`).join(" or "),
  command: `an array of 4 strings: ${[...COMMAND_PREFIX, "REQUEST"].join(", ")}`,
  parts: "an array of parts",
  message: "an A2A message",
  text: "a string",
};

export function unknownField(path: string, key: string): Problem {
  return {
    path,
    code: "unknown_field",
    message: `expected only the fields ${ENVELOPE_FIELDS.join(", ")}, found ${JSON.stringify(key)}${didYouMean(key, ENVELOPE_FIELDS)}`,
  };
}

/** "; did you mean "plan"?" when `found` is a near miss of one of `options`, else nothing. */
function didYouMean(found: unknown, options: readonly unknown[]): string {
  if (typeof found !== "string") return "";
  const words = options.filter((option): option is string => typeof option === "string");
  const guess = closest(found, words);
  return guess === undefined ? "" : `; did you mean ${JSON.stringify(guess)}?`;
}

/** The string values a literal or picklist issue expected, read back from its `expected` ('("plan" | "assess")'). */
function allowedValues(issue: v.BaseIssue<unknown>): string[] {
  return (issue.expected?.match(/"(?:[^"\\]|\\.)*"/g) ?? []).map((quoted) => JSON.parse(quoted) as string);
}

function expectedOf(issue: v.BaseIssue<unknown>): string {
  const named = EXPECTED_TYPE[issue.type];
  if (named) return named;
  return (issue.expected ?? issue.type).replace(/^\((.*)\)$/, "$1").replaceAll(" | ", " or ");
}

function describe(issue: v.BaseIssue<unknown>): { code: string; message: string } {
  const last = issue.path?.at(-1);
  const key = last && "key" in last ? String(last.key) : undefined;
  const input = issue.input;
  if (input === undefined && last && issue.expected !== "never") {
    const missing = last.type === "array" ? `item ${key}` : `field "${key}"`;
    const wanted = (key !== undefined && FIELD_EXPECTED[key]) || expectedOf(issue);
    return { code: "missing_field", message: `missing required ${missing}: expected ${wanted}, found nothing` };
  }
  switch (issue.type) {
    case "strict_object":
    case "loose_object":
    case "object":
      // The path is set by problemsFromIssues.
      if (issue.expected === "never") return unknownField("", key ?? "");
      return { code: "wrong_type", message: `expected an object, found ${typeName(input)}` };
    case "strict_tuple": {
      // An extra item is reported at that item, with the whole array as its path's input.
      const items = last && Array.isArray(last.input) ? last.input : Array.isArray(input) ? input : undefined;
      if (items) return { code: "command_length", message: `expected exactly 4 items, found ${items.length}` };
      return { code: "wrong_type", message: `expected an array of 4 strings, found ${typeName(input)}` };
    }
    case "literal":
    case "picklist":
    case "variant":
      return {
        code: "invalid_value",
        message: `expected ${expectedOf(issue)}, found ${shown(input)}${didYouMean(input, allowedValues(issue))}`,
      };
    case "integer":
      return { code: "not_integer", message: `expected a whole number, found ${shown(input)}` };
    case "min_value":
    case "max_value": {
      if (key === "timeout_seconds") {
        return {
          code: "out_of_range",
          message: `expected a number from 1 to ${MAX_TIMEOUT_SECONDS}, found ${shown(input)}`,
        };
      }
      const bound = issue.type === "min_value" ? "at least" : "at most";
      return {
        code: "out_of_range",
        message: `expected a number ${bound} ${issue.requirement}, found ${shown(input)}`,
      };
    }
    case "min_length":
      return { code: "request_empty", message: "expected a request path, found an empty string" };
    case "max_bytes":
      return {
        code: "request_too_long",
        message: `expected at most ${MAX_REQUEST_BYTES} bytes, found ${utf8Length(String(input))}`,
      };
    case "regex": {
      const rule = REQUEST_RULES.find((r) => r.regex === issue.requirement);
      if (rule) return { code: rule.code, message: `${rule.message} (${shown(input)})` };
      return {
        code: "working_dir_nul",
        message: `expected a path without NUL characters, found ${shown(input)}`,
      };
    }
    default:
      return { code: "wrong_type", message: `expected ${expectedOf(issue)}, found ${typeName(input)}` };
  }
}

/** valibot issues → problems, with paths based at `base` (a JSON Pointer to where the value sits in its file). */
export function problemsFromIssues(issues: readonly v.BaseIssue<unknown>[], base: string): Problem[] {
  return issues.map((issue) => {
    const path = joinPointer(base, ...(issue.path ?? []).map((item) => String(item.key)));
    const { code, message } = describe(issue);
    return { path, code, message };
  });
}
