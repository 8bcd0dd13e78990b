// A webhook receiver for push notification tests: a real node:http server on loopback that keeps every request it
// gets (headers and body) and answers as the test says: 200, another status, a redirect, or never.
import { once } from "node:events";
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { DEFAULT_TIMEOUT_MS } from "./bridge.js";
import type { Wire } from "./wire.js";

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  text: string;
  body: Wire;
  /** performance.now() when the body had arrived. */
  at: number;
}

/** What to answer: a status (with a Location for 3xx), or "hang" to never answer. */
export type Answer = number | "hang" | { status: number; location: string };

export class WebhookReceiver {
  readonly received: Received[] = [];
  private waiting: (() => void) | undefined;
  private readonly hung: ServerResponse[] = [];

  private constructor(
    private readonly server: Server,
    private answer: (request: Received) => Answer,
  ) {}

  static async start(answer: (request: Received) => Answer = () => 200): Promise<WebhookReceiver> {
    let receiver!: WebhookReceiver;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => receiver.take(req.method ?? "", req.url ?? "", req.headers, Buffer.concat(chunks), res));
    });
    receiver = new WebhookReceiver(server, answer);
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The receiver's URL on 127.0.0.1 (or on `host`, which the test makes resolve or not). */
  url(path = "/hook", host = "127.0.0.1"): string {
    return `http://${host}:${this.port}${path}`;
  }

  answerWith(answer: (request: Received) => Answer): void {
    this.answer = answer;
  }

  /** Resolves once `count` requests have arrived (all of them so far), or fails after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Received[]> {
    const until = Date.now() + timeoutMs;
    while (this.received.length < count) {
      const left = until - Date.now();
      if (left <= 0)
        throw new Error(`the webhook got ${this.received.length} request(s), not ${count}, within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.received;
  }

  /** Resolves once a request satisfies `test`. */
  async waitUntil(test: (request: Received) => boolean, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<Received> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(test);
      if (found) return found;
      await this.waitFor(this.received.length + 1, Math.max(1, until - Date.now()));
    }
  }

  async close(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, "close");
  }

  private take(method: string, path: string, headers: IncomingHttpHeaders, body: Buffer, res: ServerResponse): void {
    const text = body.toString("utf8");
    let json: Wire;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    const request: Received = { method, path, headers, text, body: json, at: performance.now() };
    this.received.push(request);
    const answer = this.answer(request);
    if (answer === "hang") this.hung.push(res);
    else if (typeof answer === "number") res.writeHead(answer).end();
    else res.writeHead(answer.status, { Location: answer.location }).end();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}
