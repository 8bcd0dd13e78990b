// Where push deliveries may go (CONTRACT 9.3, docs/security.md "Webhooks"): http(s) URLs whose host is loopback or
// named by --allow-webhook-host. A name is resolved once, when the config is made, and the address is pinned, so a
// name that later resolves elsewhere (DNS rebinding) changes nothing. Unspecified addresses (0.0.0.0, ::), IPv4-mapped
// forms of addresses that are not allowed, and userinfo are refused.
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";

const MAX_URL_LENGTH = 2048;
/** A name that does not resolve within this is left unresolved: delivery resolves it, once, and pins it then. */
const RESOLVE_TIMEOUT_MS = 2000;

/** A refusal's words, for the -32602 answer. */
export class WebhookRefused extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** 8 groups of 16 bits, or undefined when `text` is not an IPv6 address. */
function ipv6Groups(text: string): number[] | undefined {
  if (isIP(text) !== 6) return undefined;
  let body = text.toLowerCase().split("%")[0] as string;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body);
  if (tail) {
    const [a, b, c, d] = (tail[1] as string).split(".").map(Number) as [number, number, number, number];
    body = `${body.slice(0, -(tail[1] as string).length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = body.includes("::") ? body.split("::") : [body, undefined];
  const left = head ? head.split(":") : [];
  const right = rest ? rest.split(":") : [];
  const fill = rest === undefined ? [] : new Array(8 - left.length - right.length).fill("0");
  return [...left, ...fill, ...right].map((group) => Number.parseInt(group, 16));
}

/**
 * The address as deliveries use it: IPv4 dotted, IPv6 in its short form; an IPv4-mapped IPv6 address (::ffff:a.b.c.d)
 * is the IPv4 address it maps, so it is allowed or refused as that address is.
 */
export function canonicalAddress(text: string): string | undefined {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (isIP(bare) === 4) return bare.split(".").map(Number).join(".");
  const groups = ipv6Groups(bare);
  if (!groups) return undefined;
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    const [hi, lo] = [groups[6] as number, groups[7] as number];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  return new URL(`http://[${bare.split("%")[0]}]/`).hostname.slice(1, -1);
}

/** 0.0.0.0/8 and ::: "this host" to some stacks, which then connect to loopback or anything listening. */
function isUnspecified(address: string): boolean {
  return address === "::" || /^0\./.test(address);
}

function isLoopbackAddress(address: string): boolean {
  return address === "::1" || /^127\./.test(address);
}

/** A value of --allow-webhook-host as it is compared (lowercase name, canonical address), or the problem with it. */
export function allowedHostOf(value: string): { host: string } | { problem: string } {
  const text = value.trim().toLowerCase().replace(/\.$/, "");
  const address = canonicalAddress(text);
  if (address !== undefined) {
    if (isUnspecified(address))
      return { problem: `--allow-webhook-host cannot allow ${value}: it means every address` };
    return { host: address };
  }
  if (!/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(text) || text.length > 253)
    return {
      problem: `--allow-webhook-host expects a host name or an IP address (no scheme, port or path), found "${value}"`,
    };
  return { host: text };
}

export interface CheckedUrl {
  url: string;
  /** The pinned address; undefined when the allowed name did not resolve (yet). */
  address?: string;
  /** The allowed host name, when the URL names one (to resolve later when it did not resolve now). */
  name?: string;
}

export class WebhookHosts {
  private readonly allowed: Set<string>;

  constructor(
    allowed: readonly string[] = [],
    /** The name's address now (tests hand in their own). */
    private readonly lookupName: (name: string) => Promise<string> = async (name) => (await lookup(name)).address,
  ) {
    this.allowed = new Set(allowed);
  }

  /** The URL's checks, and its host's pinned address; throws WebhookRefused. */
  async check(text: string): Promise<CheckedUrl> {
    const url = this.parse(text);
    const host = url.hostname;
    const literal = canonicalAddress(host);
    if (literal !== undefined) return { url: url.href, address: this.checkAddress(literal, host) };
    const name = host.toLowerCase().replace(/\.$/, "");
    // localhost is loopback by definition (RFC 6761): no lookup, and the IPv4 one, where local receivers listen.
    if (name === "localhost") return { url: url.href, address: "127.0.0.1" };
    if (!this.allowed.has(name)) throw this.notAllowed(host);
    const address = await this.resolve(name, false);
    return address === undefined ? { url: url.href, name } : { url: url.href, address };
  }

  /** The address an allowed name has now, checked; undefined when it does not resolve (thrown when `strict`). */
  async resolve(name: string, strict: boolean): Promise<string | undefined> {
    let found: string;
    try {
      const timeout = new Promise<never>((_, reject) =>
        setTimeout(() => reject(new Error("no answer")), RESOLVE_TIMEOUT_MS).unref(),
      );
      found = await Promise.race([this.lookupName(name), timeout]);
    } catch (error) {
      if (strict) throw new WebhookRefused("/url", `${name} does not resolve (${(error as Error).message})`);
      return undefined;
    }
    const address = canonicalAddress(found) as string;
    if (isUnspecified(address))
      throw new WebhookRefused(
        "/url",
        `${name} resolves to ${found}, an unspecified address; deliveries never go there`,
      );
    return address;
  }

  private parse(text: string): URL {
    if (text.length > MAX_URL_LENGTH)
      throw new WebhookRefused("/url", `expected a URL of at most ${MAX_URL_LENGTH} characters, found ${text.length}`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new WebhookRefused(
        "/url",
        `expected an absolute http:// or https:// URL, found ${JSON.stringify(text.slice(0, 80))}`,
      );
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      throw new WebhookRefused("/url", `expected an http:// or https:// URL, found the scheme ${url.protocol}`);
    if (url.username !== "" || url.password !== "")
      throw new WebhookRefused(
        "/url",
        "expected a URL without userinfo (user:password@); put credentials in authentication instead",
      );
    return url;
  }

  private checkAddress(address: string, host: string): string {
    if (isUnspecified(address))
      throw new WebhookRefused("/url", `${host} is an unspecified address (${address}); deliveries never go there`);
    if (!isLoopbackAddress(address) && !this.allowed.has(address)) throw this.notAllowed(host);
    return address;
  }

  private notAllowed(host: string): WebhookRefused {
    return new WebhookRefused(
      "/url",
      `webhook host ${host} is not allowed: deliveries go only to loopback (127.0.0.0/8, ::1, localhost) or to a host named by --allow-webhook-host`,
    );
  }
}
