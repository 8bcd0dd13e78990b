// The gRPC binding (A2A 1.0 §10, docs/reference.md "gRPC"): every RPC of lf.a2a.v1.A2AService calls the operation of
// the same name (src/operations/table.ts), as REST does. Metadata carries the service parameters (`a2a-version`,
// `a2a-extensions`) and the bearer token (`authorization`); failures are google.rpc.Status (src/grpc/status.ts).
import {
  type handleServerStreamingCall,
  type handleUnaryCall,
  Metadata,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { ServiceParams } from "../a2a/service-params.js";
import { StreamReply } from "../a2a/wire/stream-reply.js";
import { CoreError } from "../core/errors.js";
import type { GateRefusal } from "../gate/request-gate.js";
import { AUTH_WORDS, tokenMatcher } from "../io/token-match.js";
import { tooLargeError } from "../operations/answer-budget.js";
import type { CallContext } from "../operations/context.js";
import { RpcFailure } from "../operations/rpc-failure.js";
import { type Operations, operationNamed } from "../operations/table.js";
import { answerBytes, RPCS, type Rpc, requestParams, resultBytes, SERVICE_NAME } from "./messages.js";
import { refusalStatus, statusOf } from "./status.js";
import { sendStream } from "./stream.js";

export interface GrpcBindingOptions {
  operations: Operations;
  /** Undefined with --no-auth. */
  token: string | undefined;
  /** The bound of an answer (docs/reference.md, "Answer size"). */
  maxAnswerBytes: number;
  /** The output a stream's client may fall behind before its stream ends (CONTRACT 8.4). */
  maxBehindBytes: number;
  /** The HTTP binding's address (http://host:port): the card's URLs name it. */
  base(): string;
  log(line: string): void;
  /**
   * A call passed the token check on the connection of `peer()` (grpc-js's `address:port`, made only when asked
   * for: it costs a call as much as the check).
   */
  authenticated?(peer: () => string): void;
}

type Status = ReturnType<typeof statusOf>;

const bytesOf = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** The service as grpc-js serves it: each RPC at its path, its messages passed as bytes to the codec. */
export function serviceDefinition(): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const rpc of RPCS)
    definition[rpc.name] = {
      path: `/${SERVICE_NAME}/${rpc.name}`,
      requestStream: false,
      responseStream: rpc.streaming,
      requestSerialize: bytesOf,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: bytesOf,
      responseDeserialize: (bytes: Buffer) => bytes,
    };
  return definition;
}

/** The first value of a metadata key as text, all of them joined when it repeats (`a2a-extensions`). */
function textOf(metadata: Metadata, key: string): string | undefined {
  const values = metadata.get(key).map((value) => (typeof value === "string" ? value : value.toString("utf8")));
  return values.length === 0 ? undefined : values.join(",");
}

function serviceParamsOf(metadata: Metadata): ServiceParams {
  const params: ServiceParams = {};
  const extensions = textOf(metadata, "a2a-extensions");
  if (extensions !== undefined) params.extensions = extensions;
  const version = textOf(metadata, "a2a-version");
  if (version !== undefined) params.version = version;
  return params;
}

/** A refusal of the request gate, in the words REST gives it. */
function gateStatus(refusal: GateRefusal): Status {
  const { words, problem } = refusal;
  return statusOf(new CoreError("invalid_params", words, problem ? { errors: [problem] } : {}));
}

export function serviceImplementation(options: GrpcBindingOptions): UntypedServiceImplementation {
  const { operations, log } = options;
  const matches = options.token === undefined ? undefined : tokenMatcher(options.token);

  /** UNAUTHENTICATED in the HTTP binding's words, or undefined when the call may go on. */
  const authProblem = (metadata: Metadata): Status | undefined => {
    if (!matches) return undefined;
    const header = textOf(metadata, "authorization");
    if (header === undefined) return refusalStatus("UNAUTHENTICATED", AUTH_WORDS.missing);
    const bearer = /^Bearer +([A-Za-z0-9._~+/-]+=*) *$/i.exec(header);
    if (!bearer) return refusalStatus("UNAUTHENTICATED", AUTH_WORDS.notBearer);
    return matches(bearer[1] as string) ? undefined : refusalStatus("UNAUTHENTICATED", AUTH_WORDS.invalid);
  };

  /** A failure of the operation as a status; anything else is ours, logged and INTERNAL. */
  const failed = (rpc: Rpc, error: unknown): Status => {
    if (error instanceof CoreError || error instanceof RpcFailure) return statusOf(error);
    log(`internal error answering ${rpc.name} over gRPC: ${(error as Error)?.stack ?? error}`);
    return refusalStatus("INTERNAL", "internal error");
  };

  /** Checks the call and runs its operation: the answer and the call's context, or the status that refuses it. */
  const run = async (
    rpc: Rpc,
    call: { metadata: Metadata; request: Buffer; getPeer(): string },
  ): Promise<{ refused: Status } | { result: unknown; context: CallContext }> => {
    const { metadata, request } = call;
    const refused = authProblem(metadata);
    if (refused) return { refused };
    options.authenticated?.(() => call.getPeer());
    const verdict = requestParams(rpc, request);
    if (!verdict.ok) return { refused: gateStatus(verdict.refusal) };
    const context: CallContext = { headers: serviceParamsOf(metadata), base: options.base() };
    try {
      return { result: await operationNamed(operations, rpc.name).call(verdict.value, context), context };
    } catch (error) {
      return { refused: failed(rpc, error) };
    }
  };

  /**
   * What the answer's metadata says: the activated extensions, and whether a kept answer was given again; undefined
   * when it says nothing (grpc-js then sends the same head with the answer by itself).
   */
  const answerMetadata = (context: CallContext): Metadata | undefined => {
    const extensions = context.headers?.extensions;
    if (!extensions && !context.replayed) return undefined;
    const metadata = new Metadata();
    if (extensions) metadata.set("a2a-extensions", extensions);
    if (context.replayed) metadata.set("idempotent-replayed", "true");
    return metadata;
  };

  const unary =
    (rpc: Rpc): handleUnaryCall<Buffer, Buffer> =>
    async (call, callback) => {
      const ran = await run(rpc, call);
      if ("refused" in ran) return callback(ran.refused);
      try {
        const { result, context } = ran;
        if (result instanceof StreamReply) throw new Error(`${rpc.name} answered a stream`);
        const bytes = resultBytes(rpc.method.output, result);
        if (bytes.byteLength > options.maxAnswerBytes) return callback(statusOf(tooLargeError(options.maxAnswerBytes)));
        const metadata = answerMetadata(context);
        if (metadata) call.sendMetadata(metadata);
        callback(null, bytesOf(bytes));
      } catch (error) {
        callback(failed(rpc, error));
      }
    };

  const streaming =
    (rpc: Rpc): handleServerStreamingCall<Buffer, Buffer> =>
    async (call) => {
      const ran = await run(rpc, call);
      if ("refused" in ran) return void call.emit("error", ran.refused);
      const { result, context } = ran;
      if (!(result instanceof StreamReply)) return void call.emit("error", failed(rpc, new Error("not a stream")));
      call.sendMetadata(answerMetadata(context) ?? new Metadata());
      await sendStream(call, result, {
        maxBehindBytes: options.maxBehindBytes,
        encode: (json) => bytesOf(answerBytes(rpc.method.output, json)),
        failed: (error) => failed(rpc, error),
      });
    };

  const implementation: UntypedServiceImplementation = {};
  for (const rpc of RPCS) implementation[rpc.name] = rpc.streaming ? streaming(rpc) : unary(rpc);
  return implementation;
}
