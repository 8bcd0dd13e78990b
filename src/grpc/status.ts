// A failure as gRPC answers it (A2A 1.0 §10.6): the status code of the error table's google.rpc status, its message,
// and the whole google.rpc.Status (with the same ErrorInfo reason and BadRequest fields as REST) in the
// `grpc-status-details-bin` trailer. One table for every binding: src/a2a/v1_0/errors.ts.
import { create, createRegistry, fromJson, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { Metadata, type StatusObject, status } from "@grpc/grpc-js";
import { type RestError, restErrorOf, restErrorOfRpc } from "../a2a/v1_0/errors.js";
import type { CoreError } from "../core/errors.js";
import { RpcFailure } from "../operations/rpc-failure.js";
import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import { StatusSchema } from "./gen/google/rpc/status_pb.js";

const DETAILS = createRegistry(ErrorInfoSchema, BadRequestSchema);
export const DETAILS_KEY = "grpc-status-details-bin";

/** The gRPC code of a google.rpc status name (INVALID_ARGUMENT...); UNKNOWN for a name gRPC does not have. */
export function codeOf(name: string): status {
  const code = (status as unknown as Record<string, status | undefined>)[name];
  return code ?? status.UNKNOWN;
}

/** A google.rpc.Status body (as REST writes it) as a gRPC status with its details trailer. */
export function statusOfBody(body: RestError["body"]): Partial<StatusObject> & { code: status } {
  const { status: name, message, details } = body.error;
  const code = codeOf(name);
  const full = fromJson(
    StatusSchema,
    { code, message, details: details as unknown as JsonValue },
    { registry: DETAILS },
  );
  const metadata = new Metadata();
  metadata.set(DETAILS_KEY, Buffer.from(toBinary(StatusSchema, full)));
  return { code, details: message, metadata };
}

/** An operation's failure (src/operations/table.ts) as a gRPC status. */
export function statusOf(failure: CoreError | RpcFailure): Partial<StatusObject> & { code: status } {
  return statusOfBody(failure instanceof RpcFailure ? restErrorOfRpc(failure.error).body : restErrorOf(failure).body);
}

/** A refusal made here (UNAUTHENTICATED, INTERNAL), in the same shape, without details: as the HTTP binding's 401. */
export function refusalStatus(name: string, message: string): Partial<StatusObject> & { code: status } {
  const code = codeOf(name);
  const metadata = new Metadata();
  metadata.set(DETAILS_KEY, Buffer.from(toBinary(StatusSchema, create(StatusSchema, { code, message }))));
  return { code, details: message, metadata };
}
