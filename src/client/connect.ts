// The official A2A client (@a2a-js/sdk's ClientFactory) for a runtime at a URL: it reads the agent card, picks
// JSON-RPC or HTTP+JSON from it (A2A 1.0, or 0.3 where the card offers only 0.3), and sends the bearer token and
// the extensions we activate on every request. The token never appears in an argument, a message or an error.
import type { AgentCard } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  type RequestOptions,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
} from "@a2a-js/sdk/client";
import { cutText } from "../core/log-field.js";
import { ADAPTER_URI, HITL_URI } from "../core/uris.js";
import { checkedToken, readTokenFile, TokenError } from "../io/bearer-token.js";
import { TOKEN_ENV } from "../io/token-match.js";
import { ClientFailure, classify, type FailureContext } from "./failures.js";
import { CLIENT_LIMITS, type ErrorAnswer, guardedFetch } from "./guarded-fetch.js";
import { checkInterfaces, originOf } from "./origins.js";

export type Binding = "jsonrpc" | "rest";

export interface ServerOptions {
  server: string;
  tokenFile?: string | undefined;
  /** Prefer this binding when the card offers both (default: the card's order). */
  binding?: Binding | undefined;
  /** Other origins the card may name, which then get requests and the token too (`--trust-origin`). */
  trustOrigin?: string[] | undefined;
}

export interface Connection {
  client: Client;
  card: AgentCard;
  /** Sent with every call: the activated extensions (the server echoes them). */
  options: RequestOptions;
  /** The body of the last error answer (REST errors keep their BadRequest details only there). */
  lastErrorBody(): unknown;
  /** An error of a call as a ClientFailure whose words name the URL and what happened. */
  failure(error: unknown): ClientFailure;
  /** The origin of --server, as words name it. */
  origin: string;
  /** "JSONRPC" or "HTTP+JSON", and the protocol version in use. */
  binding: string;
  version: string;
}

/** The token from `--token-file`, else the environment; undefined when neither gives one (a `--no-auth` server). */
export async function readToken(tokenFile: string | undefined, env = process.env): Promise<string | undefined> {
  try {
    // The server's own rules (src/io/bearer-token.ts): a regular file of at most 4 KiB, never a FIFO, only the
    // characters of a bearer token; the words never quote the token.
    if (tokenFile !== undefined) return readTokenFile(tokenFile).value;
    const fromEnv = env[TOKEN_ENV]?.trim();
    return fromEnv ? checkedToken(fromEnv, TOKEN_ENV) : undefined;
  } catch (error) {
    if (error instanceof TokenError) throw new ClientFailure("usage", error.message);
    throw error;
  }
}

export async function connect(options: ServerOptions, needs: { hitl: boolean }): Promise<Connection> {
  const base = originOf(options.server, "--server");
  const trusted = new Set([
    base.origin,
    ...(options.trustOrigin ?? []).map((url) => originOf(url, "--trust-origin").origin),
  ]);
  const token = await readToken(options.tokenFile);
  let lastError: unknown;
  let lastAnswer: ErrorAnswer | undefined;
  const guard = {
    origin: base.origin,
    trusted,
    token,
    onRequest: () => {
      lastAnswer = undefined;
    },
    onError: (answer: ErrorAnswer) => {
      lastAnswer = answer;
      try {
        lastError = JSON.parse(answer.text);
      } catch {
        lastError = undefined;
      }
    },
    refused: (status: number) =>
      status === 401
        ? token === undefined
          ? `the server at ${base.origin} wants a token: pass --token-file F or set ${TOKEN_ENV}`
          : `the server at ${base.origin} refused the token (401)`
        : status === 403
          ? `the server at ${base.origin} refused the request (403)`
          : undefined,
  };
  const cardFetch = guardedFetch({ ...guard, maxBytes: CLIENT_LIMITS.cardBytes, what: "the agent card" });
  const fetchImpl = guardedFetch({ ...guard, maxBytes: CLIENT_LIMITS.answerBytes, what: "an answer" });
  const context = (): FailureContext => ({ server: base.origin, answer: lastAnswer });
  const resolver = new DefaultAgentCardResolver({ fetchImpl: cardFetch, legacyCompat: { enabled: true } });
  let card: AgentCard;
  try {
    card = await resolver.resolve(base.href.replace(/\/$/, ""));
  } catch (error) {
    if (error instanceof ClientFailure) throw error;
    if ((error as { cause?: unknown }).cause instanceof ClientFailure) throw (error as { cause: unknown }).cause;
    throw new ClientFailure(
      "infrastructure",
      `cannot read the agent card of ${base.origin}: ${classify(error, undefined).message}`,
    );
  }
  checkCard(card, base.origin, needs);
  // Before anything is sent: a card that names another origin would get the token there (docs/security.md).
  checkInterfaces(card, base.origin, trusted);
  const preferred = options.binding === "rest" ? "HTTP+JSON" : options.binding === "jsonrpc" ? "JSONRPC" : undefined;
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
        new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } }),
      ],
      cardResolver: resolver,
      ...(preferred ? { preferredTransports: [preferred] } : {}),
    }),
  );
  let client: Client;
  try {
    client = await factory.createFromAgentCard(card);
  } catch (error) {
    throw new ClientFailure(
      "infrastructure",
      `no usable interface on the card of ${base.origin}: ${(error as Error).message}`,
    );
  }
  if (preferred && client.transport.protocolName !== preferred)
    throw new ClientFailure("infrastructure", `the card of ${base.origin} offers no ${preferred} interface`);
  return {
    client,
    card,
    options: { serviceParameters: ServiceParameters.create(withA2AExtensions(ADAPTER_URI, HITL_URI)) },
    lastErrorBody: () => lastError,
    failure: (error) => classify(error, lastError, context()),
    origin: base.origin,
    binding: client.transport.protocolName,
    version: client.protocolVersion,
  };
}

/** A runtime that does not declare the extensions cannot run an envelope or ask a prompt: said before sending. */
export function checkCard(card: AgentCard, origin: string, needs: { hitl: boolean }): void {
  const declared = new Set((card.capabilities?.extensions ?? []).map((extension) => extension.uri));
  const missing = [ADAPTER_URI, ...(needs.hitl ? [HITL_URI] : [])].filter((uri) => !declared.has(uri));
  if (missing.length > 0)
    throw new ClientFailure(
      "infrastructure",
      `the agent card of ${origin} (${cutText(card.name || "unnamed", 100)}) does not declare ${missing.join(" or ")}: it cannot ${
        missing.includes(ADAPTER_URI) ? "run adapter-command envelopes" : "ask text-line prompts"
      }`,
    );
}
