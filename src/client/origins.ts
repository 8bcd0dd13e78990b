// Where the client may send a request, and with it the token: the origin of --server (scheme, host and port) and
// the origins the user names with --trust-origin, nothing a server says (docs/security.md, "The client"). Pure.
import type { AgentCard } from "@a2a-js/sdk";
import { ClientFailure } from "./failures.js";

/** The bindings this client speaks: an interface of another binding (gRPC) is never called, so never judged. */
const SPOKEN = new Set(["JSONRPC", "HTTP+JSON"]);

/** `text` with any user info (`user:password@`) of a URL replaced, so words can quote it. */
export function withoutUserInfo(text: string): string {
  return text.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, "$1…@");
}

/**
 * The URL of an option (`--server`, `--trust-origin`): http or https, without user info. A user name or password
 * in it would be sent as Basic auth and printed in words: it is refused (the token has --token-file), never quoted.
 */
export function originOf(text: string, flag: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {}
  if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
    throw new ClientFailure(
      "usage",
      `expected an http:// or https:// URL for ${flag}, found "${withoutUserInfo(text)}"`,
    );
  if (url.username !== "" || url.password !== "")
    throw new ClientFailure(
      "usage",
      `expected ${flag} without a user name or password, found ${url.protocol}//…@${url.host}: pass the token with --token-file or ${"ADAPTER_COMMAND_TOKEN"}`,
    );
  return url;
}

/**
 * Refuses a card whose interfaces (A2A 1.0 `supportedInterfaces`, or 0.3 `url` and `additionalInterfaces`, which
 * the SDK turns into them) name an origin the user did not: the token would go there. Nothing is sent before.
 */
export function checkInterfaces(card: AgentCard, origin: string, trusted: ReadonlySet<string>): void {
  for (const face of card.supportedInterfaces ?? []) {
    if (!SPOKEN.has(String(face.protocolBinding ?? "").toUpperCase())) continue;
    let url: URL | undefined;
    try {
      url = new URL(String(face.url));
    } catch {}
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:"))
      throw new ClientFailure(
        "infrastructure",
        `the card of ${origin} names a ${face.protocolBinding} interface at "${withoutUserInfo(String(face.url))}", not an http:// or https:// URL: refused before anything was sent`,
      );
    if (!trusted.has(url.origin))
      throw new ClientFailure(
        "infrastructure",
        `the card of ${origin} names a ${face.protocolBinding} interface at ${url.origin}, another origin than ${origin}: refused before anything was sent, so the token stays with ${origin} (pass --trust-origin ${url.origin} if that runtime is yours)`,
      );
  }
}
