// Why a call to a server failed, sorted by the exit code it leads to (src/exit-codes.ts): a usage error of ours, a
// rejected envelope (with the problems the server found), or the server itself (unreachable, gone, refusing).
import type { Problem } from "../core/envelope/problems.js";
import { cutText } from "../core/log-field.js";
import { printable } from "../core/printable.js";

/** Characters of a server's own words kept in a message: an error body may be 256 KiB. */
const SERVER_WORDS_CHARS = 400;

export type FailureKind = "usage" | "rejected" | "infrastructure" | "refused";

export class ClientFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    /** For "rejected": the envelope's problems, as `validate` prints them. */
    readonly problems: Problem[] = [],
  ) {
    // Words may quote a server: no control character of theirs reaches a terminal, a log or --json.
    super(printable(message));
    this.name = "ClientFailure";
  }
}

/** `fetch failed` says nothing: the cause (ECONNREFUSED, ECONNRESET, ENOTFOUND…) says what happened. */
export function describeNetworkError(error: unknown, origin: string): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const why = cause?.code ?? cause?.message ?? (error as Error).message;
  if (why === "ECONNREFUSED") return `cannot reach ${origin}: nothing listens there (ECONNREFUSED)`;
  return `lost ${origin}: ${why}`;
}

interface FieldViolation {
  field?: unknown;
  description?: unknown;
  reason?: unknown;
}

/** The BadRequest details of a 1.0 error (CONTRACT 7.5) as problems; [] when there are none. */
export function problemsOf(details: unknown): Problem[] {
  if (!Array.isArray(details)) return [];
  const problems: Problem[] = [];
  for (const detail of details) {
    if (!detail || typeof detail !== "object") continue;
    const violations = (detail as { fieldViolations?: unknown }).fieldViolations;
    if (!Array.isArray(violations)) continue;
    for (const v of violations.slice(0, 100) as FieldViolation[]) {
      problems.push({
        path: typeof v.field === "string" ? printable(cutText(v.field, SERVER_WORDS_CHARS)) : "",
        code: typeof v.reason === "string" ? printable(cutText(v.reason, SERVER_WORDS_CHARS)) : "invalid",
        message: typeof v.description === "string" ? printable(cutText(v.description, SERVER_WORDS_CHARS)) : "invalid",
      });
    }
  }
  return problems;
}

/** Where a call went, for the words of its failure. */
export interface FailureContext {
  /** The origin of --server. */
  server: string;
  /** The last error answer (status >= 400) of a call, if the failure came with one. */
  answer?: { where: string; status: number; statusText: string } | undefined;
}

/**
 * Sorts an error thrown by the SDK. `lastErrorBody` is the last error answer's body (REST keeps its details only
 * there). A rejection is the server's -32602 / 400 whose message starts `adapter-command/v1 rejected` (CONTRACT 7.5).
 */
export function classify(error: unknown, lastErrorBody: unknown, where?: FailureContext): ClientFailure {
  if (error instanceof ClientFailure) return error;
  const e = error as { message?: string; envelopeCode?: number; statusCode?: number; data?: unknown; cause?: unknown };
  if (e.cause instanceof ClientFailure) return e.cause;
  const said = cutText(typeof e.message === "string" ? e.message : String(error), SERVER_WORDS_CHARS);
  // Every failure names the URL and what happened: the SDK's words alone ("An unexpected error occurred.") do not.
  const answer = where?.answer;
  const message =
    where === undefined
      ? said
      : answer
        ? `${answer.where} answered ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ""}: ${said}`
        : `${where.server}: ${said}`;
  if (/rejected/.test(said) && (e.envelopeCode === -32602 || e.statusCode === 400)) {
    const restDetails = (lastErrorBody as { error?: { details?: unknown } } | undefined)?.error?.details;
    const problems = problemsOf(e.data).length > 0 ? problemsOf(e.data) : problemsOf(restDetails);
    return new ClientFailure("rejected", message, problems);
  }
  // A server that fails (HTTP 5xx, JSON-RPC internal error) has not refused: it is the infrastructure (exit 4).
  const serverFault = (e.statusCode ?? 0) >= 500 || (answer?.status ?? 0) >= 500 || e.envelopeCode === -32603;
  if (!serverFault && (e.envelopeCode !== undefined || e.statusCode !== undefined))
    return new ClientFailure("refused", message);
  return new ClientFailure("infrastructure", message);
}
