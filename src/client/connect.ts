// The official A2A client (@a2a-js/sdk's ClientFactory) for a runtime at a URL: it reads the agent card, picks
// JSON-RPC or HTTP+JSON from it (A2A 1.0, or 0.3 where the card offers only 0.3), and sends the bearer token and
// the extensions we activate on every request. The token never appears in an argument, a message or an error.
import { readFile } from "node:fs/promises";
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
import { ADAPTER_URI, HITL_URI } from "../core/uris.js";
import { TOKEN_ENV } from "../io/token-match.js";
import { ClientFailure, describeNetworkError } from "./failures.js";

export type Binding = "jsonrpc" | "rest";

export interface ServerOptions {
  server: string;
  tokenFile?: string | undefined;
  /** Prefer this binding when the card offers both (default: the card's order). */
  binding?: Binding | undefined;
}

export interface Connection {
  client: Client;
  card: AgentCard;
  /** Sent with every call: the activated extensions (the server echoes them). */
  options: RequestOptions;
  /** The body of the last error answer (REST errors keep their BadRequest details only there). */
  lastErrorBody(): unknown;
  /** "JSONRPC" or "HTTP+JSON", and the protocol version in use. */
  binding: string;
  version: string;
}

/** The largest error body kept for its details: a hostile server cannot make us hold more. */
const MAX_ERROR_BODY = 256 * 1024;

/** The token from `--token-file`, else the environment; undefined when neither gives one (a `--no-auth` server). */
export async function readToken(tokenFile: string | undefined, env = process.env): Promise<string | undefined> {
  if (tokenFile !== undefined) {
    let text: string;
    try {
      text = await readFile(tokenFile, "utf8");
    } catch (error) {
      throw new ClientFailure("usage", `cannot read the token file ${tokenFile}: ${(error as Error).message}`);
    }
    const token = text.trim();
    if (token === "") throw new ClientFailure("usage", `the token file ${tokenFile} is empty`);
    return token;
  }
  const fromEnv = env[TOKEN_ENV]?.trim();
  return fromEnv ? fromEnv : undefined;
}

export async function connect(options: ServerOptions, needs: { hitl: boolean }): Promise<Connection> {
  let base: URL;
  try {
    base = new URL(options.server);
    if (base.protocol !== "http:" && base.protocol !== "https:") throw new Error(base.protocol);
  } catch {
    throw new ClientFailure("usage", `expected an http:// or https:// URL for --server, found "${options.server}"`);
  }
  const token = await readToken(options.tokenFile);
  let lastError: unknown;
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (token !== undefined) headers.set("Authorization", `Bearer ${token}`);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers });
    } catch (error) {
      if ((error as Error).name === "AbortError") throw error;
      throw new ClientFailure("infrastructure", describeNetworkError(error, base.origin));
    }
    if (response.status === 401)
      throw new ClientFailure(
        "infrastructure",
        token === undefined
          ? `the server at ${base.origin} wants a token: pass --token-file F or set ${TOKEN_ENV}`
          : `the server at ${base.origin} refused the token (401)`,
      );
    if (response.status === 403)
      throw new ClientFailure("infrastructure", `the server at ${base.origin} refused the request (403)`);
    if (response.status >= 400) {
      const text = await response.clone().text();
      try {
        lastError = text.length <= MAX_ERROR_BODY ? JSON.parse(text) : undefined;
      } catch {
        lastError = undefined;
      }
    }
    return response;
  };
  const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } });
  let card: AgentCard;
  try {
    card = await resolver.resolve(base.href.replace(/\/$/, ""));
  } catch (error) {
    if (error instanceof ClientFailure) throw error;
    throw new ClientFailure(
      "infrastructure",
      `cannot read the agent card of ${base.origin}: ${(error as Error).message}`,
    );
  }
  checkCard(card, base.origin, needs);
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
      `the agent card of ${origin} (${card.name || "unnamed"}) does not declare ${missing.join(" or ")}: it cannot ${
        missing.includes(ADAPTER_URI) ? "run adapter-command envelopes" : "ask text-line prompts"
      }`,
    );
}
