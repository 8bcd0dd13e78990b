// The gRPC binding (A2A 1.0 §10) over @grpc/grpc-js and the messages generated from proto/a2a.proto: the same
// 1.0 JSON params converted to protobuf, the answers back to ProtoJSON, failures from `grpc-status-details-bin`.
import { type DescMessage, fromBinary, fromJson, toBinary, toJson } from "@bufbuild/protobuf";
import { anyUnpack } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import {
  CancelTaskRequestSchema,
  GetTaskRequestSchema,
  ListTasksRequestSchema,
  ListTasksResponseSchema,
  SendMessageRequestSchema,
  SendMessageResponseSchema,
  StreamResponseSchema,
  SubscribeToTaskRequestSchema,
  TaskSchema,
} from "../grpc/gen/a2a_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "../grpc/gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "../grpc/gen/google/rpc/status_pb.js";
import {
  type Answer,
  type CallOptions,
  type Driver,
  type DriverConfig,
  extensionsOf,
  type Json,
  type Op,
  type StreamAnswer,
  type StreamOp,
  type StreamOptions,
  type WireError,
} from "./driver.js";
import { MAX_BODY_BYTES, MAX_STREAM_ITEMS } from "./http.js";

const SERVICE = "lf.a2a.v1.A2AService";
const RPCS: Record<Op | StreamOp, { input: DescMessage; output: DescMessage }> = {
  SendMessage: { input: SendMessageRequestSchema, output: SendMessageResponseSchema },
  SendStreamingMessage: { input: SendMessageRequestSchema, output: StreamResponseSchema },
  GetTask: { input: GetTaskRequestSchema, output: TaskSchema },
  ListTasks: { input: ListTasksRequestSchema, output: ListTasksResponseSchema },
  CancelTask: { input: CancelTaskRequestSchema, output: TaskSchema },
  SubscribeToTask: { input: SubscribeToTaskRequestSchema, output: StreamResponseSchema },
};
/** Answers may carry a request's Struct back (a task's history), deeper than protobuf-es's default limit. */
const DECODE = { readUnknownFields: false, recursionLimit: 1000 };
const passBytes = (bytes: Buffer) => bytes;
/** ProtoJSON as the JSON bindings write it: fields the proto marks REQUIRED are there even when empty. */
const JSON_OUT = { alwaysEmitImplicit: true };

/** `host:port` of a gRPC interface URL, which may be written with or without a scheme. */
export function grpcTarget(url: string): string {
  return url.replace(/^(grpcs?|https?):\/\//, "").replace(/\/+$/, "");
}

function metadataOf(values: grpc.Metadata | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(values?.getMap() ?? {}))
    out[name.toLowerCase()] = typeof value === "string" ? value : `(${value.byteLength} bytes)`;
  return out;
}

function failureOf(error: grpc.ServiceError): WireError {
  const out: WireError = { status: grpc.status[error.code] ?? String(error.code), message: error.details };
  const bin = error.metadata?.get("grpc-status-details-bin")[0];
  if (bin === undefined) return out;
  try {
    const status = fromBinary(StatusSchema, Buffer.isBuffer(bin) ? bin : Buffer.from(bin));
    for (const detail of status.details) {
      const info = anyUnpack(detail, ErrorInfoSchema);
      if (info && out.reason === undefined) {
        out.reason = info.reason;
        out.domain = info.domain;
        out.infoMetadata = { ...info.metadata };
      }
      const bad = anyUnpack(detail, BadRequestSchema);
      if (bad)
        out.fieldViolations = bad.fieldViolations.map((v) => ({
          field: v.field,
          description: v.description,
          reason: v.reason,
        }));
    }
  } catch (thrown) {
    out.message += ` (grpc-status-details-bin unreadable: ${(thrown as Error).message})`;
  }
  return out;
}

export class GrpcDriver implements Driver {
  readonly binding = "grpc" as const;
  readonly url: string;
  readonly token: string | undefined;
  private readonly client: grpc.Client;

  constructor(private readonly config: DriverConfig) {
    this.token = config.token;
    this.url = config.url;
    this.client = new grpc.Client(grpcTarget(config.url), grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": MAX_BODY_BYTES,
    });
  }

  private metadata(options: CallOptions): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (this.config.token !== undefined) metadata.set("authorization", `Bearer ${this.config.token}`);
    metadata.set("a2a-version", options.version ?? "1.0");
    const extensions = extensionsOf(this.config, options);
    if (extensions !== undefined) metadata.set("a2a-extensions", extensions);
    return metadata;
  }

  private body(op: Op | StreamOp, params: Json): Buffer {
    const { input } = RPCS[op];
    return Buffer.from(toBinary(input, fromJson(input, params, { ignoreUnknownFields: true })));
  }

  call(op: Op, params: Json, options: CallOptions = {}): Promise<Answer> {
    const body = this.body(op, params);
    return new Promise((resolve) => {
      let headers: grpc.Metadata | undefined;
      const call = this.client.makeUnaryRequest(
        `/${SERVICE}/${op}`,
        passBytes,
        passBytes,
        body,
        this.metadata(options),
        { deadline: Date.now() + this.config.timeoutMs },
        (error, bytes) => {
          if (error) {
            resolve({ status: 0, headers: metadataOf(headers ?? error.metadata), raw: "", error: failureOf(error) });
            return;
          }
          const raw = bytes as Buffer;
          try {
            const result = toJson(RPCS[op].output, fromBinary(RPCS[op].output, raw, DECODE), JSON_OUT);
            resolve({ status: 200, headers: metadataOf(headers), raw: raw.toString("hex"), result });
          } catch (thrown) {
            resolve({
              status: 200,
              headers: metadataOf(headers),
              raw: raw.toString("hex"),
              error: { message: `cannot decode the answer: ${(thrown as Error).message}` },
            });
          }
        },
      );
      call.on("metadata", (received: grpc.Metadata) => {
        headers = received;
      });
    });
  }

  stream(op: StreamOp, params: Json, options: StreamOptions = {}): Promise<StreamAnswer> {
    const call = this.client.makeServerStreamRequest(
      `/${SERVICE}/${op}`,
      passBytes,
      passBytes,
      this.body(op, params),
      this.metadata(options),
      { deadline: Date.now() + this.config.timeoutMs },
    );
    return new Promise((resolve) => {
      const items: Json[] = [];
      let headers: grpc.Metadata | undefined;
      let error: WireError | undefined;
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        resolve({
          status: error ? 0 : 200,
          headers: metadataOf(headers),
          items,
          ids: items.map(() => undefined),
          ...(error ? { error } : {}),
        });
      };
      call.on("metadata", (received: grpc.Metadata) => {
        headers = received;
      });
      call.on("data", (bytes: Buffer) => {
        if (done) return;
        try {
          items.push(toJson(StreamResponseSchema, fromBinary(StreamResponseSchema, bytes, DECODE), JSON_OUT));
        } catch (thrown) {
          error = { message: `cannot decode an item: ${(thrown as Error).message}` };
        }
        if (error || items.length > MAX_STREAM_ITEMS || options.until?.(items)) {
          if (items.length > MAX_STREAM_ITEMS)
            error = { message: `the stream sent more than ${MAX_STREAM_ITEMS} items` };
          call.cancel();
          finish();
        }
      });
      call.on("error", (failure: grpc.ServiceError) => {
        if (!done && failure.code !== grpc.status.CANCELLED) error ??= failureOf(failure);
      });
      call.on("status", () => setImmediate(finish));
    });
  }

  close(): void {
    this.client.close();
  }
}
