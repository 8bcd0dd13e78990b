// What a binding tells an operation beyond its params, and what the operation tells the binding back.
import type { ServiceParams } from "../a2a/service-params.js";

export interface CallContext {
  /** The service parameters of the request's headers or metadata (HTTP, gRPC); none on stdio. */
  headers?: ServiceParams;
  /** A request without an id: nobody will read its answer, so a stream it opens is closed at once. */
  notification?: boolean;
  /** Set by the operation: the answer is a kept first answer, replayed (HTTP: `Idempotent-Replayed: true`, 9.1). */
  replayed?: boolean;
  /** The HTTP base address the request reached (http://host:port), for the card's URLs; none on stdio. */
  base?: string;
  /** Set for one send under idempotency/v1: told the send's task once it is accepted (src/a2a/requests.ts). */
  accepted?: (taskId: string) => void;
}
