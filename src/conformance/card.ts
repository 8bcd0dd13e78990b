// The agent card, read once before the scenarios (A2A 1.0 §8.2: `/.well-known/agent-card.json`): its interfaces
// say which bindings exist, its extensions which must be activated. A card that cannot be read or names no
// interface stops the suite (exit 4). An interface on another host than `--server` is not used: the token is
// sent only where the operator pointed the tool (docs/security.md, "What a server sends is data").

import { BINDINGS, type Binding, type Json, PROTOCOL_BINDING, parseJson } from "./driver.js";
import { grpcTarget } from "./driver-grpc.js";
import { brief, request } from "./http.js";

export interface CardInfo {
  url: string;
  /** The card's text, as served. */
  text: string;
  card: Json;
  /** The 1.0 interface URL of each binding the card declares on the server's host. */
  interfaces: Partial<Record<Binding, string>>;
  /** Why a declared binding is not used. */
  refused: Partial<Record<Binding, string>>;
  /** URIs of the extensions the card declares `required: true`. */
  required: string[];
  extension(uri: string): Json | undefined;
}

export class ServerProblem extends Error {}

export const cardUrl = (server: string) => `${server.replace(/\/+$/, "")}/.well-known/agent-card.json`;

/** The host (name, without port) an interface URL points at. */
function hostOf(binding: Binding, url: string): string | undefined {
  try {
    return new URL(binding === "grpc" ? `http://${grpcTarget(url)}` : url).hostname;
  } catch {
    return undefined;
  }
}

export async function readCard(server: string, timeoutMs: number): Promise<CardInfo> {
  const url = cardUrl(server);
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(url, { headers: { Accept: "application/json" } }, timeoutMs);
  } catch (error) {
    throw new ServerProblem(`cannot read the agent card at ${url}: ${(error as Error).message}`);
  }
  if (answer.status !== 200) throw new ServerProblem(`the agent card at ${url} answered HTTP ${answer.status}`);
  const parsed = parseJson(answer.text);
  if (!parsed.ok || typeof parsed.value !== "object" || parsed.value === null || Array.isArray(parsed.value))
    throw new ServerProblem(`the agent card at ${url} is not a JSON object: ${brief(answer.text)}`);
  return cardInfo(server, url, answer.text, parsed.value);
}

/** What the suite takes from a card (pure: unit-tested). */
export function cardInfo(server: string, url: string, text: string, card: Json): CardInfo {
  const serverHost = new URL(server).hostname;
  const interfaces: CardInfo["interfaces"] = {};
  const refused: CardInfo["refused"] = {};
  const declared = Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : [];
  for (const binding of BINDINGS) {
    const entry = declared.find(
      (item: Json) =>
        item?.protocolBinding === PROTOCOL_BINDING[binding] &&
        typeof item?.url === "string" &&
        String(item?.protocolVersion ?? "").startsWith("1."),
    );
    if (!entry) continue;
    if (hostOf(binding, entry.url) !== serverHost)
      refused[binding] =
        `its ${PROTOCOL_BINDING[binding]} interface ${brief(entry.url, 120)} is not on ${serverHost}, and the token goes only there`;
    else interfaces[binding] = entry.url;
  }
  if (Object.keys(interfaces).length === 0 && Object.keys(refused).length === 0)
    throw new ServerProblem(`the agent card at ${url} declares no A2A 1.0 interface in supportedInterfaces`);
  const extensions: Json[] = Array.isArray(card.capabilities?.extensions) ? card.capabilities.extensions : [];
  const required = extensions
    .filter((entry) => entry?.required === true && typeof entry.uri === "string")
    .map((entry) => entry.uri as string);
  return {
    url,
    text,
    card,
    interfaces,
    refused,
    required,
    extension: (uri) => extensions.find((entry) => entry?.uri === uri),
  };
}
