// The gRPC binding's messages (CONTRACT 8, A2A 1.0 §10): each RPC of lf.a2a.v1.A2AService, generated from
// proto/a2a.proto at build time (`npm run proto`), read as the ProtoJSON its operation takes and written from the
// ProtoJSON its operation answers. The 1.0 operations speak ProtoJSON already, so one conversion each way is the whole
// codec. A request is decoded once, to the ProtoJSON value the gate judges (its nesting) and the operation reads; an
// answer kept as text (an ended task read again) is converted once and its bytes kept beside the text
// (docs/benchmarks.md, `grpc_get_task_rps`).
import { type DescMessage, type DescMethod, fromBinary, fromJsonString, toBinary, toJson } from "@bufbuild/protobuf";
import { MAX_NESTING } from "../core/envelope/json-value.js";
import { type GateVerdict, passDecoded } from "../gate/request-gate.js";
import { JsonText, valueJson } from "../operations/json-text.js";
import { A2AService } from "./gen/a2a_pb.js";

/** The service's name on the wire, as the proto declares it. */
export const SERVICE_NAME = A2AService.typeName;

// Each JSON level of a Struct is three protobuf levels (Value, Struct, its map entry): past the gate's nesting and
// the few levels of the request around it, decoding stops before it could go deep.
const RECURSION_LIMIT = 3 * MAX_NESTING + 16;

export interface Rpc {
  /** The operation's name: the RPC's own (SendMessage, GetTask...). */
  name: string;
  streaming: boolean;
  method: DescMethod;
}

export const RPCS: readonly Rpc[] = A2AService.methods.map((method) => ({
  name: method.name,
  streaming: method.methodKind === "server_streaming",
  method,
}));

/**
 * A request's bytes as the operation's params, through the request gate, or the gate's refusal. A message protobuf
 * cannot read (or that nests past the decoder's limit) is refused in the gate's words; the size was judged on the
 * message itself (the server's grpc.max_receive_message_length is --max-body-bytes).
 */
export function requestParams(rpc: Rpc, bytes: Uint8Array): GateVerdict {
  let value: unknown;
  try {
    value = toJson(rpc.method.input, fromBinary(rpc.method.input, bytes, { recursionLimit: RECURSION_LIMIT }));
  } catch (error) {
    const words = `expected a ${rpc.method.input.typeName} message: ${(error as Error).message}`;
    return { ok: false, refusal: { rule: "not_json", words, id: null, method: rpc.name } };
  }
  return passDecoded(value);
}

/** An operation's answer (ProtoJSON text) as the bytes of `schema`; fields the proto lacks (0.3's) are left out. */
export function answerBytes(schema: DescMessage, json: string): Uint8Array {
  return toBinary(schema, fromJsonString(schema, json, { ignoreUnknownFields: true }));
}

/**
 * The bytes of an operation's result as `schema`. A result that is JSON text already is an answer kept for the next
 * read (src/operations/ended-task-texts.ts): its bytes live as long as it does, so they are made once. The kept texts
 * are bounded in count and bytes, and so are these.
 */
export function resultBytes(schema: DescMessage, result: unknown): Uint8Array {
  if (!(result instanceof JsonText)) return answerBytes(schema, result == null ? "{}" : valueJson(result));
  const bySchema = keptBytes.get(result) ?? new Map<DescMessage, Uint8Array>();
  const kept = bySchema.get(schema);
  if (kept) return kept;
  const bytes = answerBytes(schema, result.text);
  bySchema.set(schema, bytes);
  keptBytes.set(result, bySchema);
  return bytes;
}

const keptBytes = new WeakMap<JsonText, Map<DescMessage, Uint8Array>>();
