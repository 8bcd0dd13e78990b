// The one gate every request body passes, on every binding (stdio lines, HTTP JSON-RPC, REST), before anything else
// reads it: size, media type, UTF-8, JSON, nesting, repeated keys, in that order. A refusal is said in the same
// words on every binding; each binding only chooses its code (CONTRACT 5.1, 8.1, 8.3; docs/security.md, "Hostile
// requests"). Past the gate, a value nests at most MAX_NESTING levels below its params, so whatever walks it later
// (JSON.stringify included) cannot overflow the stack.
import { isUtf8 } from "node:buffer";
import { JsonTree, membersParsed } from "../core/envelope/json-document.js";
import { isRecord, MAX_NESTING } from "../core/envelope/json-value.js";
import type { Problem } from "../core/envelope/problems.js";

export type GateRule = "too_large" | "content_type" | "not_utf8" | "not_json" | "too_deep" | "duplicate_key";

export interface GateRefusal {
  rule: GateRule;
  /** What was expected and what was found: the same words on every binding. */
  words: string;
  /** The request's id, when it can be read (JSON-RPC answers carry it). */
  id: string | number | null;
  /** The request's method, when it can be read (the shapes of a -32005 follow its family). */
  method: string | undefined;
  /** duplicate_key: the repeated key, its pointer into the params (JSON-RPC) or the body (REST). */
  problem?: Problem;
  /** duplicate_key: true when the key repeats inside a request's params (or is `params` itself). */
  inParams?: boolean;
}

/** A JSON-RPC body (one request or a batch), or a REST body (the params themselves; empty is `{}`). */
export type BodyShape = "jsonrpc" | "rest";

export interface GateInput {
  shape: BodyShape;
  bytes: Buffer;
  maxBytes: number;
  /** The Content-Type header on HTTP (undefined when absent); stdio has no media type to check (leave it out). */
  contentType?: string | undefined;
  checkContentType?: boolean;
}

export type GateVerdict =
  | {
      ok: true;
      value: unknown;
      /** JSON-RPC: requests of the body refused on their own (a repeated key), each with its refusal. */
      refused: ReadonlyMap<unknown, GateRefusal>;
    }
  | { ok: false; refusal: GateRefusal };

/** The members a request may start with before its id: `{"jsonrpc":"2.0","method":"…","id":…`. */
const LEADING_ID =
  /^\s*\{(?:\s*"(?:jsonrpc|method)"\s*:\s*"(?:[^"\\]|\\.)*"\s*,)*\s*"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)\s*[,}]/;

/** The id of a request whose line was too long to read, when its first bytes show it; otherwise null. */
export function idInHead(head: string): string | number | null {
  const match = LEADING_ID.exec(head);
  if (!match) return null;
  try {
    const id: unknown = JSON.parse(match[1] as string);
    return typeof id === "string" || typeof id === "number" ? id : null;
  } catch {
    return null;
  }
}

const NONE: ReadonlyMap<unknown, GateRefusal> = new Map();
const A2A_JSON = "application/a2a+json";

/** Media types a request body may have (any charset parameter). */
export function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  if (contentType === "application/json") return true;
  const type = contentType.split(";", 1)[0]?.trim().toLowerCase();
  return type === "application/json" || type === A2A_JSON;
}

/** A body over the limit, of which only its first bytes (`head`, to find the request's id) were kept. */
export function tooLarge(bytes: number, maxBytes: number, head: string): GateRefusal {
  return {
    rule: "too_large",
    words: `a body of ${bytes} bytes is over the limit of ${maxBytes}; discarded`,
    id: idInHead(head),
    method: undefined,
  };
}

/** Runs every rule on one body; the first that fails is the refusal. */
export function passGate(input: GateInput): GateVerdict {
  const { bytes, shape } = input;
  if (bytes.length > input.maxBytes)
    return refused(tooLarge(bytes.length, input.maxBytes, bytes.subarray(0, 256).toString("utf8")));
  if (input.checkContentType && !isJsonMediaType(input.contentType)) {
    const words = `expected Content-Type application/json or application/a2a+json, found ${input.contentType ?? "none"}`;
    return refused({ rule: "content_type", words, ...requestOf(readable(bytes)) });
  }
  if (!isUtf8(bytes)) {
    const words = `expected UTF-8 text, found bytes that are not UTF-8 at byte ${firstInvalidByte(bytes)}`;
    return refused({ rule: "not_utf8", words, id: null, method: undefined });
  }
  const text = bytes.toString("utf8");
  if (shape === "rest" && isBlank(text)) return { ok: true, value: {}, refused: NONE };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return refused({
      rule: "not_json",
      words: `expected JSON: ${(error as Error).message}`,
      id: null,
      method: undefined,
    });
  }
  const structure = scan(text);
  // Nesting counts below the params: a JSON-RPC request is one level above them, a batch two; a REST body is them.
  const above = shape === "rest" ? 0 : Array.isArray(value) ? 2 : 1;
  if (structure.deepest - above > MAX_NESTING) {
    const words = tooDeepWords(structure.deepest - above);
    return refused({ rule: "too_deep", words, ...(Array.isArray(value) ? noRequest : requestOf(value)) });
  }
  // JSON.parse keeps the last of two equal keys, another reader may keep the first: a second key could hide an
  // envelope (CONTRACT section 2). Written members that the parsed objects do not hold are repeated keys.
  if (structure.members === membersParsed(value)) return { ok: true, value, refused: NONE };
  const duplicates = JsonTree.of(text, value, MAX_NESTING + above)?.duplicateKeys() ?? [];
  if (shape === "rest") {
    const first = duplicates[0];
    if (!first) return { ok: true, value, refused: NONE };
    const problem = duplicateProblem(first.key, first.path);
    return refused({ rule: "duplicate_key", words: problem.message, id: null, method: undefined, problem });
  }
  const byRequest = new Map<unknown, GateRefusal>();
  for (const duplicate of duplicates) {
    const tokens = duplicate.path.slice(1).split("/");
    const request = Array.isArray(value) ? value[Number(tokens[0])] : value;
    const inside = Array.isArray(value) ? tokens.slice(1) : tokens;
    if (byRequest.has(request)) continue;
    // The key "params" repeated on the request hides a whole other params: its pointer is the params' root.
    const inParams = inside[0] === "params";
    const path = inParams ? (inside.length === 1 ? "" : `/${inside.slice(1).join("/")}`) : `/${inside.join("/")}`;
    const problem = duplicateProblem(duplicate.key, path);
    const { id, method } = requestOf(request);
    // A repeated id leaves no id to answer to.
    const answerId = !inParams && inside.length === 1 && inside[0] === "id" ? null : id;
    byRequest.set(request, { rule: "duplicate_key", words: problem.message, id: answerId, method, problem, inParams });
  }
  return { ok: true, value, refused: byRequest };
}

/**
 * The gate for a REST-shaped request a binding's codec has decoded already (gRPC: protobuf, its size bounded by the
 * server): the codec refused what is not a message and text that is not UTF-8, and a decoded message holds each key
 * once, so nesting is the rule left to run, on the value itself instead of on its text written out and read again.
 */
export function passDecoded(value: unknown): GateVerdict {
  const deepest = depthOf(value);
  if (deepest > MAX_NESTING) return refused({ rule: "too_deep", words: tooDeepWords(deepest), ...noRequest });
  return { ok: true, value, refused: NONE };
}

const tooDeepWords = (found: number) => `expected at most ${MAX_NESTING} levels of nesting, found ${found}`;

/** How deeply objects and arrays nest in a value: the brackets its JSON text would open. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== "object" || item === null) continue;
    if (depth > deepest) deepest = depth;
    for (const child of Array.isArray(item) ? item : Object.values(item))
      if (typeof child === "object" && child !== null) stack.push([child, depth + 1]);
  }
  return deepest;
}

const refused = (refusal: GateRefusal): GateVerdict => ({ ok: false, refusal });

const noRequest = { id: null, method: undefined };

function duplicateProblem(key: string, path: string): Problem {
  const where = path === "" ? "" : ` at ${path}`;
  return {
    path,
    code: "duplicate_key",
    message: `expected each key once in an object, found ${JSON.stringify(key)} again${where}`,
  };
}

/** The id and method of a parsed request, where they are of the right kinds. */
function requestOf(value: unknown): { id: string | number | null; method: string | undefined } {
  if (!isRecord(value)) return noRequest;
  const id = typeof value.id === "string" || typeof value.id === "number" ? value.id : null;
  return { id, method: typeof value.method === "string" ? value.method : undefined };
}

/** A body refused for its media type may still show its request (for the answer's id and family). */
function readable(bytes: Buffer): unknown {
  if (!isUtf8(bytes)) return undefined;
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch {
    return undefined;
  }
}

function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) return false;
  }
  return true;
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629; only on refusal). */
export function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    if (lead < 0x80) {
      i++;
      continue;
    }
    const length =
      lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 0;
    if (length === 0) return i;
    // The second byte's range excludes overlong forms, surrogates and code points past U+10FFFF.
    const low = lead === 0xe0 ? 0xa0 : lead === 0xf0 ? 0x90 : 0x80;
    const high = lead === 0xed ? 0x9f : lead === 0xf4 ? 0x8f : 0xbf;
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k];
      if (next === undefined) return i;
      if (k === 1 ? next < low || next > high : next < 0x80 || next > 0xbf) return i;
    }
    i += length;
  }
  return bytes.length;
}

/** How deeply brackets nest and how many members objects write (colons outside strings), in one pass. */
function scan(text: string): { deepest: number; members: number } {
  let depth = 0;
  let deepest = 0;
  let members = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // To the closing quote: one not preceded by an odd run of backslashes.
      for (;;) {
        const quote = text.indexOf('"', i + 1);
        if (quote === -1) return { deepest, members };
        let slashes = 0;
        while (text.charCodeAt(quote - 1 - slashes) === 0x5c) slashes++;
        i = quote;
        if (slashes % 2 === 0) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (code === 0x5d || code === 0x7d) depth--;
    else if (code === 0x3a) members++;
  }
  return { deepest, members };
}
