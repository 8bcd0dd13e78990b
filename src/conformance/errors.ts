// A2A 1.0.1 §5.4, the error table: each A2A error's JSON-RPC code, gRPC status and HTTP status, and the ErrorInfo
// every binding carries (domain `a2a-protocol.org`, the reason in UPPER_SNAKE_CASE without "Error").
import type { Answer, Binding, StreamAnswer, WireError } from "./driver.js";
import { brief } from "./http.js";
import { Mismatch, type ScenarioContext } from "./scenario.js";

export interface ErrorRow {
  name: string;
  code: number;
  grpc: string;
  http: number;
  reason: string;
}

const row = (name: string, code: number, grpc: string, http: number): ErrorRow => ({
  name,
  code,
  grpc,
  http,
  reason: name
    .replace(/Error$/, "")
    .replace(/([a-z])([A-Z])/g, "$1_$2")
    .toUpperCase(),
});

export const A2A_ERRORS = {
  taskNotFound: row("TaskNotFound", -32001, "NOT_FOUND", 404),
  taskNotCancelable: row("TaskNotCancelable", -32002, "FAILED_PRECONDITION", 400),
  pushNotSupported: row("PushNotificationNotSupported", -32003, "FAILED_PRECONDITION", 400),
  unsupportedOperation: row("UnsupportedOperation", -32004, "FAILED_PRECONDITION", 400),
  contentTypeNotSupported: row("ContentTypeNotSupported", -32005, "INVALID_ARGUMENT", 400),
  invalidAgentResponse: row("InvalidAgentResponse", -32006, "INTERNAL", 500),
  extendedCardNotConfigured: row("ExtendedAgentCardNotConfigured", -32007, "FAILED_PRECONDITION", 400),
  extensionSupportRequired: row("ExtensionSupportRequired", -32008, "FAILED_PRECONDITION", 400),
  versionNotSupported: row("VersionNotSupported", -32009, "FAILED_PRECONDITION", 400),
};

export const A2A_DOMAIN = "a2a-protocol.org";

/** What the row says a binding answers, in words. */
export function expectedWords(binding: Binding, row: ErrorRow): string {
  const info = `ErrorInfo ${row.reason} (${A2A_DOMAIN})`;
  if (binding === "jsonrpc") return `JSON-RPC error ${row.code} with ${info}`;
  if (binding === "rest") return `HTTP ${row.http} ${row.grpc} with ${info}`;
  return `gRPC ${row.grpc} with ${info}`;
}

/** Checks an error against its row of §5.4 on `binding`. */
export function expectA2AError(binding: Binding, error: WireError | undefined, row: ErrorRow, success?: unknown): void {
  const expected = expectedWords(binding, row);
  if (!error) throw new Mismatch(expected, `a success: ${brief(success)}`);
  const found = () =>
    `${binding === "jsonrpc" ? `code ${error.code}` : binding === "rest" ? `HTTP ${error.httpStatus} ${error.status}` : `gRPC ${error.status}`}, ErrorInfo ${error.reason ?? "(none)"} (${error.domain ?? "no domain"}): ${brief(error.message, 160)}`;
  const statusOk =
    binding === "jsonrpc"
      ? error.code === row.code
      : binding === "rest"
        ? error.httpStatus === row.http && error.status === row.grpc
        : error.status === row.grpc;
  if (!statusOk || error.reason !== row.reason || error.domain !== A2A_DOMAIN) throw new Mismatch(expected, found());
}

/** A scenario's check: the request `send` makes is refused as `row` says, on the binding the scenario runs on. */
export function refusedWith(
  row: ErrorRow,
  send: (ctx: ScenarioContext) => Promise<Answer | StreamAnswer>,
): (ctx: ScenarioContext) => Promise<void> {
  return async (ctx) => {
    const answer = await send(ctx);
    expectA2AError(ctx.driver.binding, answer.error, row, "items" in answer ? answer.items : answer.result);
  };
}
