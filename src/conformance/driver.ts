// One A2A 1.0 binding as the scenarios call it: the same operations and the same 1.0 JSON params on JSON-RPC,
// HTTP+JSON and gRPC, and the answer as it came (status, headers, the exact bytes) beside its decoded result or
// error, so a scenario compares bytes where the spec says "byte for byte" and fields where it names fields.

export type Binding = "jsonrpc" | "rest" | "grpc";
export const BINDINGS: Binding[] = ["jsonrpc", "rest", "grpc"];
/** The card's protocolBinding of each (A2A 1.0 §5.1). */
export const PROTOCOL_BINDING: Record<Binding, string> = { jsonrpc: "JSONRPC", rest: "HTTP+JSON", grpc: "GRPC" };

export type Op = "SendMessage" | "GetTask" | "ListTasks" | "CancelTask";
export type StreamOp = "SendStreamingMessage" | "SubscribeToTask";

// biome-ignore lint/suspicious/noExplicitAny: wire objects are checked field by field where they are used
export type Json = any;

export interface CallOptions {
  /** URIs activated besides the ones the card requires (A2A-Extensions). */
  extensions?: string[];
  /** Activate nothing at all, not even what the card requires (RUNTIME-CONF-003). */
  noExtensions?: boolean;
  /** A2A-Version to send (default "1.0"). */
  version?: string;
  /** The JSON-RPC request id (default a fresh number); a replay check sends the same one twice. */
  jsonrpcId?: number | string;
}

/** An error answer, decoded from whichever binding gave it. */
export interface WireError {
  /** JSON-RPC `error.code`. */
  code?: number;
  /** HTTP status (REST and JSON-RPC over HTTP). */
  httpStatus?: number;
  /** The gRPC status code's name, or REST's google.rpc.Status `status`. */
  status?: string;
  message: string;
  /** The google.rpc.ErrorInfo detail. */
  reason?: string;
  domain?: string;
  infoMetadata?: Record<string, string>;
  /** google.rpc.BadRequest field violations. */
  fieldViolations?: Json[];
  /** JSON-RPC `error.data` as it came (0.3-style objects carry `validation_errors` there). */
  data?: Json;
}

export interface Answer {
  /** HTTP status; on gRPC 200 for OK, else the HTTP status the gRPC code maps to is not guessed: 0. */
  status: number;
  /** Response headers (gRPC: the answer's metadata), names in lower case. */
  headers: Record<string, string>;
  /** What came, exactly: the body text; gRPC: the message bytes in hex. */
  raw: string;
  /** The result, as 1.0 JSON (SendMessage: `{ task }` or `{ message }`). */
  result?: Json;
  error?: WireError;
}

export interface StreamAnswer {
  status: number;
  headers: Record<string, string>;
  /** StreamResponse objects, in order. */
  items: Json[];
  /** The SSE `id:` of each item (undefined on gRPC). */
  ids: (string | undefined)[];
  /** The error the stream was refused with, or ended with. */
  error?: WireError;
}

export interface StreamOptions extends CallOptions {
  /** Stop reading (disconnect) once this holds for the items so far. */
  until?: (items: Json[]) => boolean;
}

export interface Driver {
  binding: Binding;
  /** The interface's URL as the card gives it. */
  url: string;
  /** The bearer token sent with every call (the official client of A2A-SDK-CLIENT sends it too). */
  token: string | undefined;
  call(op: Op, params: Json, options?: CallOptions): Promise<Answer>;
  stream(op: StreamOp, params: Json, options?: StreamOptions): Promise<StreamAnswer>;
  close(): void;
}

export interface DriverConfig {
  url: string;
  token: string | undefined;
  /** The URIs the card declares required: activated on every request, as a client of the runtime must. */
  required: string[];
  timeoutMs: number;
}

/** The A2A-Extensions value of a request. */
export function extensionsOf(config: DriverConfig, options: CallOptions): string | undefined {
  if (options.noExtensions) return undefined;
  const uris = [...new Set([...config.required, ...(options.extensions ?? [])])];
  return uris.length === 0 ? undefined : uris.join(", ");
}

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST = "type.googleapis.com/google.rpc.BadRequest";

/** ErrorInfo and BadRequest out of a list of typed details (JSON-RPC `error.data`, REST `error.details`). */
export function detailsOf(details: unknown): Pick<WireError, "reason" | "domain" | "infoMetadata" | "fieldViolations"> {
  const out: Pick<WireError, "reason" | "domain" | "infoMetadata" | "fieldViolations"> = {};
  if (!Array.isArray(details)) return out;
  for (const detail of details) {
    if (typeof detail !== "object" || detail === null) continue;
    if (detail["@type"] === ERROR_INFO && out.reason === undefined) {
      if (typeof detail.reason === "string") out.reason = detail.reason;
      if (typeof detail.domain === "string") out.domain = detail.domain;
      if (typeof detail.metadata === "object" && detail.metadata !== null) out.infoMetadata = detail.metadata;
    }
    if (detail["@type"] === BAD_REQUEST && Array.isArray(detail.fieldViolations))
      out.fieldViolations = detail.fieldViolations;
  }
  return out;
}

/** Headers as a plain object, names in lower case. */
export function headerObject(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    out[name.toLowerCase()] = value;
  });
  return out;
}

/** JSON.parse that says what it could not read instead of throwing. */
export function parseJson(text: string): { ok: true; value: Json } | { ok: false; problem: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: (error as Error).message };
  }
}
