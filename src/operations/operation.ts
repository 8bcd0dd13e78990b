// One A2A operation, described once (docs/architecture.md, "The operations table"): its name in each family that has
// it, whether it answers with a stream, whether idempotency/v1 keeps and replays it, and what it runs in each family.
// The table (src/operations/table.ts) is a list of these; every fact a binding or a check needs is read from it.
import type { RuntimeCard } from "../a2a/card.js";
import type { CardSigner } from "../a2a/card-signature.js";
import type { DecodedSend } from "../a2a/requests.js";
import type { A2aService } from "../a2a/service.js";
import type { Family } from "../a2a/service-params.js";
import type { TaskStream } from "../a2a/task-stream.js";
import type { StreamReply } from "../a2a/wire/stream-reply.js";
import type { CallContext } from "./context.js";
import type { EndedTaskTexts } from "./ended-task-texts.js";

/** What every operation runs on: made once per table (src/operations/table.ts). */
export interface OperationKit {
  service: A2aService;
  /** Ended tasks' answers kept as text (one cache per table). */
  texts: EndedTaskTexts;
  version: string;
  /** A 0.3 stream: its first item is the Task. */
  stream03(stream: Promise<TaskStream> | TaskStream): Promise<StreamReply>;
  /** A 1.0 stream: its first item is `{ task }`; a subscription's events carry its request's id (stdio). */
  stream10(stream: Promise<TaskStream> | TaskStream, subscription?: boolean): Promise<StreamReply>;
  /** The public card plus the operator's setup, for an authenticated caller (CONTRACT 8.2). */
  extended<C extends object>(card: C): C;
  /** The card of the runtime's own extensions (CONTRACT 9). */
  runtimeCard: RuntimeCard;
  /** Signs the 1.0 extended card (docs/reference.md, "Signed cards"). */
  signer: CardSigner | undefined;
}

/** What an operation runs, in one family: its answer (a value, a JsonText, a StreamReply), or a CoreError thrown. */
export type Run = (kit: OperationKit, params: unknown, context: CallContext) => unknown;

/** How a kept answer of a send is given again under idempotency/v1 (CONTRACT 9.1). */
export interface Replay {
  /** A send answered with a task that had not ended: the task as it is now (undefined for a stream's send). */
  task(kit: OperationKit, taskId: string, send: DecodedSend): unknown;
  /** A send answered with a stream, or accepted before a crash: a stream of the task from its current state. */
  stream(kit: OperationKit, taskId: string): Promise<StreamReply>;
}

/** One family's face of an operation: its name there (the JSON-RPC method; in 1.0 also the gRPC RPC) and its run. */
export interface Face {
  name: string;
  run: Run;
}

/**
 * The face of a send: idempotency/v1 keeps its first answer, replayed by `replay`; --require-extensions asks for
 * IDEMPOTENCY too (CONTRACT 9.1, 9.5). Its params are decoded once, by `decode`: the request hash and the run both
 * read that decoded send.
 */
export interface SendFace {
  name: string;
  decode(params: unknown): DecodedSend;
  run(kit: OperationKit, send: DecodedSend, context: CallContext): unknown;
  replay: Replay;
}

interface EntryFacts {
  /** It answers with a stream (a StreamReply), which a binding follows (default: no). */
  streaming?: boolean;
}

/** An operation that is no send. */
export interface PlainEntry extends EntryFacts {
  send?: false;
  "0.3"?: Face;
  "1.0"?: Face;
}

/** A send (CONTRACT 9.1): both its faces are sends. */
export interface SendEntry extends EntryFacts {
  send: true;
  "0.3": SendFace;
  "1.0": SendFace;
}

export type OperationEntry = PlainEntry | SendEntry;

/** What is known of an operation without running it. */
export interface OperationFacts {
  readonly name: string;
  readonly family: Family;
  readonly streaming: boolean;
  readonly send: boolean;
  /** For a send: the name its request hash carries, the 1.0 name in both families (CONTRACT 9.1). */
  readonly hashName: string;
}
