// A raw gRPC client of lf.a2a.v1.A2AService for end-to-end tests, over @grpc/grpc-js and the schemas generated from
// proto/a2a.proto (src/grpc/gen): any request bytes (malformed ones too), the answer's metadata, and a failure's
// google.rpc.Status decoded from `grpc-status-details-bin`. Every call has a deadline, so a broken server fails the
// test instead of hanging it.
import { type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import {
  type BadRequest,
  BadRequestSchema,
  type ErrorInfo,
  ErrorInfoSchema,
} from "../../src/grpc/gen/google/rpc/error_details_pb.js";
import { type Status, StatusSchema } from "../../src/grpc/gen/google/rpc/status_pb.js";
import { DEFAULT_TIMEOUT_MS } from "./bridge.js";

export const SERVICE = "lf.a2a.v1.A2AService";

/** A failed call: its code and message, and the google.rpc.Status of its trailer with the details unpacked. */
export interface GrpcFailure {
  code: grpc.status;
  details: string;
  metadata: grpc.Metadata;
  /** The `grpc-status-details-bin` trailer, decoded; undefined when there is none. */
  status: Status | undefined;
  errorInfo: ErrorInfo | undefined;
  badRequest: BadRequest | undefined;
}

export type Unary<T> =
  | { ok: true; message: T; metadata: grpc.Metadata; failure?: undefined }
  | { ok: false; failure: GrpcFailure; metadata: grpc.Metadata | undefined; message?: undefined };

export function failureOf(error: grpc.ServiceError): GrpcFailure {
  const bin = error.metadata?.get("grpc-status-details-bin")[0];
  const status =
    bin === undefined ? undefined : fromBinary(StatusSchema, Buffer.isBuffer(bin) ? bin : Buffer.from(bin));
  let errorInfo: ErrorInfo | undefined;
  let badRequest: BadRequest | undefined;
  for (const detail of status?.details ?? []) {
    errorInfo ??= anyUnpack(detail, ErrorInfoSchema);
    badRequest ??= anyUnpack(detail, BadRequestSchema);
  }
  return { code: error.code, details: error.details, metadata: error.metadata, status, errorInfo, badRequest };
}

/** Metadata with `authorization: Bearer <token>` (when there is a token) and the given pairs. */
export function metadataOf(token: string | undefined, pairs: Record<string, string> = {}): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set("authorization", `Bearer ${token}`);
  for (const [key, value] of Object.entries(pairs)) metadata.set(key, value);
  return metadata;
}

const passBytes = (bytes: Buffer) => bytes;

/** Answers may carry a request's Struct back (a task's history): deeper than protobuf-es's default limit of 100. */
const DECODE = { recursionLimit: 1000 };

export class RawGrpc {
  readonly client: grpc.Client;

  constructor(
    readonly target: string,
    private readonly token?: string,
  ) {
    this.client = new grpc.Client(target, grpc.credentials.createInsecure(), {
      // The client may send more than the server takes: the server's limit is what is tested.
      "grpc.max_send_message_length": 64 * 1024 * 1024,
    });
  }

  private deadline(timeoutMs: number): grpc.CallOptions {
    return { deadline: Date.now() + timeoutMs };
  }

  /** A unary call with `body` (a message of `input`, or bytes as they are); the answer read as `output`. */
  unaryBytes<O extends DescMessage>(
    rpc: string,
    body: Uint8Array,
    output: O,
    metadata: grpc.Metadata = metadataOf(this.token),
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): Promise<Unary<MessageShape<O>>> {
    return new Promise((resolve, reject) => {
      let answerMetadata: grpc.Metadata | undefined;
      const call = this.client.makeUnaryRequest(
        `/${SERVICE}/${rpc}`,
        passBytes,
        passBytes,
        Buffer.from(body),
        metadata,
        this.deadline(timeoutMs),
        (error, bytes) => {
          try {
            if (error) resolve({ ok: false, failure: failureOf(error), metadata: answerMetadata });
            else
              resolve({
                ok: true,
                message: fromBinary(output, bytes as Buffer, DECODE),
                metadata: answerMetadata ?? new grpc.Metadata(),
              });
          } catch (thrown) {
            reject(thrown);
          }
        },
      );
      call.on("metadata", (received: grpc.Metadata) => {
        answerMetadata = received;
      });
    });
  }

  unary<I extends DescMessage, O extends DescMessage>(
    rpc: string,
    input: I,
    request: MessageShape<I>,
    output: O,
    metadata?: grpc.Metadata,
  ): Promise<Unary<MessageShape<O>>> {
    return this.unaryBytes(rpc, toBinary(input, request), output, metadata);
  }

  /**
   * A server-streaming call: every message until the stream ends, with the answer's metadata, and the failure it
   * ended with, if any.
   */
  stream<I extends DescMessage, O extends DescMessage>(
    rpc: string,
    input: I,
    request: MessageShape<I>,
    output: O,
    metadata: grpc.Metadata = metadataOf(this.token),
    timeoutMs = DEFAULT_TIMEOUT_MS,
  ): { call: grpc.ClientReadableStream<Buffer>; done: Promise<StreamResult<MessageShape<O>>> } {
    const call = this.client.makeServerStreamRequest(
      `/${SERVICE}/${rpc}`,
      passBytes,
      passBytes,
      Buffer.from(toBinary(input, request)),
      metadata,
      this.deadline(timeoutMs),
    );
    const done = new Promise<StreamResult<MessageShape<O>>>((resolve) => {
      const messages: MessageShape<O>[] = [];
      let answerMetadata: grpc.Metadata | undefined;
      let failure: GrpcFailure | undefined;
      call.on("metadata", (received: grpc.Metadata) => {
        answerMetadata = received;
      });
      call.on("data", (bytes: Buffer) => {
        try {
          messages.push(fromBinary(output, bytes, DECODE));
        } catch (thrown) {
          call.cancel();
          failure ??= {
            code: grpc.status.INTERNAL,
            details: `cannot decode: ${(thrown as Error).message}`,
          } as GrpcFailure;
        }
      });
      call.on("error", (error: grpc.ServiceError) => {
        failure = failureOf(error);
      });
      call.on("status", () => setImmediate(() => resolve({ messages, metadata: answerMetadata, failure })));
    });
    return { call, done };
  }

  close(): void {
    this.client.close();
  }
}

export interface StreamResult<T> {
  messages: T[];
  metadata: grpc.Metadata | undefined;
  failure: GrpcFailure | undefined;
}
