// Which `Host` headers name this server (CONTRACT 8.1): a page on another site can resolve its own name to our
// address (DNS rebinding), but its requests still carry that name, so anything else is refused. docs/security.md.
import { isIP } from "node:net";
import { networkInterfaces } from "node:os";

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/** True for `localhost`, 127.0.0.0/8 and ::1: the addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  const bare = unbracket(host).toLowerCase();
  if (bare === "localhost" || bare === "::1") return true;
  return isIP(bare) === 4 && bare.startsWith("127.");
}

function isWildcard(host: string): boolean {
  const bare = unbracket(host);
  return bare === "0.0.0.0" || bare === "::";
}

const unbracket = (host: string) => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host);

/** A host as it is written in a URL or a Host header: IPv6 addresses in brackets. */
function urlHost(host: string): string {
  const bare = unbracket(host);
  return isIP(bare) === 6 ? `[${bare}]` : bare.toLowerCase();
}

/**
 * The Host values accepted, each `name:port` in lower case: the listening address; on loopback also `localhost`,
 * `127.0.0.1` and `[::1]`; on a wildcard address every address of this machine's interfaces and the loopback names.
 */
export function allowedHosts(listenHost: string, port: number): Set<string> {
  const names = new Set<string>();
  if (isWildcard(listenHost)) {
    for (const addresses of Object.values(networkInterfaces()))
      for (const { address } of addresses ?? []) names.add(urlHost(address));
    for (const name of LOOPBACK_NAMES) names.add(name);
  } else {
    names.add(urlHost(listenHost));
    if (isLoopback(listenHost)) for (const name of LOOPBACK_NAMES) names.add(name);
  }
  const hosts = new Set<string>();
  for (const name of names) {
    hosts.add(`${name}:${port}`);
    // A client leaves out the default port.
    if (port === 80) hosts.add(name);
  }
  return hosts;
}

/** The base URL a client on this machine reaches: a wildcard address is reached through loopback. */
export function baseUrl(listenHost: string, port: number): string {
  const host = isWildcard(listenHost) ? (unbracket(listenHost) === "::" ? "[::1]" : "127.0.0.1") : urlHost(listenHost);
  return `http://${host}:${port}`;
}
