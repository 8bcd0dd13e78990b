// One webhook POST (CONTRACT 9.3): to the pinned address only (the URL's name stays in the Host header and in TLS),
// no redirect followed (a 3xx is not a delivery), the whole exchange bounded by the timeout, the answer's body read
// and thrown away up to a limit so that the connection can be used again.
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { isIP } from "node:net";

/** A receiver's answer body is not ours to keep: past this it is cut off. */
const MAX_RECEIVER_REPLY_BYTES = 64 * 1024;

export type WebhookAgent = HttpAgent | HttpsAgent;

export function agentFor(url: URL): WebhookAgent {
  // One connection a config, kept open between deliveries: they are sent one at a time, in order.
  const options = { keepAlive: true, maxSockets: 1 };
  return url.protocol === "https:" ? new HttpsAgent(options) : new HttpAgent(options);
}

/** A lookup that always answers the pinned address: the connection goes nowhere else. */
function pinned(address: string): LookupFunction {
  const family = isIP(address);
  return ((_host: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  }) as LookupFunction;
}

/** Resolves with undefined once a 2xx answer's head arrives, or with why the delivery failed. */
export function postOnce(
  url: URL,
  address: string,
  body: string | Buffer,
  headers: Record<string, string>,
  timeoutMs: number,
  agent: WebhookAgent,
): Promise<string | undefined> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (why: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(why);
    };
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    let req: ClientRequest;
    try {
      req = send(url, {
        method: "POST",
        agent,
        lookup: pinned(address),
        headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) },
      });
    } catch (error) {
      resolve(`cannot send: ${(error as Error).message}`);
      return;
    }
    const timer = setTimeout(() => {
      req.destroy();
      finish(`no answer within ${timeoutMs} ms`);
    }, timeoutMs);
    timer.unref();
    req.once("error", (error: NodeJS.ErrnoException) => finish(error.code ?? error.message));
    req.once("response", (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      discard(response, timeoutMs);
      finish(
        status >= 200 && status < 300
          ? undefined
          : `answered ${status}${status >= 300 && status < 400 ? " (redirects are not followed)" : ""}`,
      );
    });
    req.end(body);
  });
}

/** Reads the answer's body to its end (up to the limit and the timeout) so the connection can carry the next one. */
function discard(response: IncomingMessage, timeoutMs: number): void {
  let bytes = 0;
  const timer = setTimeout(() => response.destroy(), timeoutMs);
  timer.unref();
  response.on("data", (chunk: Buffer) => {
    bytes += chunk.length;
    if (bytes > MAX_RECEIVER_REPLY_BYTES) response.destroy();
  });
  response.once("close", () => clearTimeout(timer));
  response.once("error", () => {});
}
