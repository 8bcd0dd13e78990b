// Requests as the service takes them, decoded from either protocol version by its codec.
import type { SendInput } from "../core/envelope/envelope.js";
import type { Problem } from "../core/envelope/problems.js";
import type { ListQuery } from "../core/task/list-query.js";
import type { ConfigRequest } from "./push/config-wire.js";

/**
 * A send as the service takes it from either family's codec: the core's `SendInput` (the message in the core's
 * shape, the request's metadata) and the send's configuration named for what it means; no wire object of either
 * family.
 */
export interface SendRequest extends SendInput {
  /** What the codec found wrong in the send's own fields (0.3 `configuration`), refused with the message's problems. */
  problems: Problem[];
  /** Activated extensions that this runtime recognises. */
  extensions: string[];
  /** Answer at once instead of when the task ends or needs input. */
  returnImmediately: boolean;
  historyLength?: number;
  /**
   * A push notification config given inline (1.0 `configuration.taskPushNotificationConfig`, 0.3
   * `configuration.pushNotificationConfig`), its fields decoded and checked by the codec; `path` is where it was.
   */
  push?: { config: ConfigRequest; family: "0.3" | "1.0"; path: string };
  /**
   * Called in the turn the send's task is made (or answered), before its process starts: idempotency/v1 writes its
   * key down here, so a retry after a crash finds it (CONTRACT 9.1).
   */
  onAccepted?: (taskId: string) => void;
}

/**
 * A send as its codec decoded it, once: its params as idempotency/v1 hashes them (CONTRACT 9.1: the names the codec
 * reads, unknown fields dropped, without message.messageId and the service parameters), and the service's request,
 * made when first asked from the same decoded objects (it throws what the request's checks refuse, inside the send,
 * so a refusal is kept as its first answer).
 */
export interface DecodedSend {
  readonly hashed: unknown;
  request(): SendRequest;
}

export interface GetRequest {
  id: string;
  historyLength?: number;
}

export interface ListRequest {
  query: ListQuery;
  historyLength?: number;
  includeArtifacts: boolean;
}

export interface TaskOptions {
  historyLength?: number;
  /** Artifacts are left out when false. */
  includeArtifacts?: boolean;
}
