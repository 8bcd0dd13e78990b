// The only fetch the A2A client uses (src/client/connect.ts hands it to @a2a-js/sdk): what a server sends is data,
// bounded and timed, never a reason to send the token elsewhere (docs/security.md, "The client"; the limits are in
// docs/reference.md, "A runtime at a URL"). A request goes only to an origin the user named (--server, or
// --trust-origin), with the token; a redirect is followed only within its origin (a body is never re-sent to another);
// the head must come within a limit, and a body is read through a counter that ends it past its bound or when idle.
import { ClientFailure, describeNetworkError } from "./failures.js";

const MiB = 1024 * 1024;

/** Every limit of a request, in one place (docs/reference.md lists them). */
export const CLIENT_LIMITS = {
  /** Connecting and the answer's head (status and headers). */
  headMs: 10_000,
  /** No byte of a body or a stream for this long ends it (the server sends an SSE comment every 15 s). */
  idleMs: 45_000,
  /** A whole answer that is not a stream: the card, a JSON answer, an error body. */
  bodyMs: 120_000,
  /** The agent card. */
  cardBytes: 1 * MiB,
  /** One JSON answer: the server's own bound is 8 x --max-output-bytes, 64 MiB by default (docs/reference.md). */
  answerBytes: 64 * MiB,
  /** The body of an error answer (its details are kept for the words). */
  errorBytes: 256 * 1024,
  /** One SSE line, and one SSE event (the SDK's own limit, so that ours speaks first). */
  sseBytes: 4 * MiB,
  /** Same-origin redirects followed in a row. */
  redirects: 5,
} as const;

export interface Guard {
  /** The origin of --server: scheme, host and port. */
  origin: string;
  /** The origins a request may go to, with the token: --server's and each --trust-origin. */
  trusted: ReadonlySet<string>;
  token: string | undefined;
  /** The bound of a JSON body that is not an error (the card's, or an answer's). */
  maxBytes: number;
  /** What the bound is called in words ("the agent card", "an answer"). */
  what: string;
  /** Called as each request starts (the words of a failure name the answer it came with, not an older one). */
  onRequest?: () => void;
  /** Called with every error answer (status >= 400), its body read within its bound. */
  onError?: (answer: ErrorAnswer) => void;
  /** Words for 401 and 403: the token is wanted or refused (connect.ts). */
  refused?: (status: number) => string | undefined;
}

export interface ErrorAnswer {
  /** Origin and path, never user info or query. */
  where: string;
  status: number;
  statusText: string;
  text: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** Origin and path of a URL, for words: never its user info nor its query. */
export function whereOf(url: URL): string {
  return `${url.origin}${url.pathname === "/" ? "" : url.pathname}`;
}

export function guardedFetch(guard: Guard): typeof fetch {
  return async (input, init) => {
    guard.onRequest?.();
    let url = new URL(input instanceof Request ? input.url : String(input));
    let method = init?.method ?? "GET";
    let body = init?.body;
    for (let hops = 0; ; hops++) {
      if (!guard.trusted.has(url.origin))
        throw new ClientFailure(
          "infrastructure",
          `refused to send a request to ${url.origin}: the token and requests go only to ${guard.origin}${
            guard.trusted.size > 1 ? " and the origins given with --trust-origin" : ""
          }`,
        );
      url.username = "";
      url.password = "";
      const response = await head(url, { ...init, method, body: body ?? null }, guard);
      if (!REDIRECTS.has(response.status)) return bounded(url, response, guard);
      await response.body?.cancel().catch(() => {});
      const location = response.headers.get("location");
      const target = location === null ? undefined : parsed(location, url);
      if (!target)
        throw new ClientFailure(
          "infrastructure",
          `${whereOf(url)} answered ${response.status} with no usable Location`,
        );
      if (target.origin !== url.origin)
        throw new ClientFailure(
          "infrastructure",
          `${whereOf(url)} redirected to ${target.origin}, another origin: not followed, so neither the token nor the request leaves ${url.origin}`,
        );
      if (hops + 1 >= CLIENT_LIMITS.redirects)
        throw new ClientFailure(
          "infrastructure",
          `${whereOf(url)} redirected ${CLIENT_LIMITS.redirects} times in a row`,
        );
      // As fetch does: 303 (and 301/302 after a POST) becomes a GET without the body; 307 and 308 keep both.
      if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
        method = "GET";
        body = undefined;
      }
      url = target;
    }
  };
}

function parsed(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** Sends one request and waits for its head, within CLIENT_LIMITS.headMs. */
async function head(url: URL, init: RequestInit, guard: Guard): Promise<Response> {
  const headers = new Headers(init.headers);
  if (guard.token !== undefined) headers.set("Authorization", `Bearer ${guard.token}`);
  const timer = new AbortController();
  const late = setTimeout(() => timer.abort(), CLIENT_LIMITS.headMs);
  const signal = init.signal ? AbortSignal.any([init.signal, timer.signal]) : timer.signal;
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers, signal, redirect: "manual" });
  } catch (error) {
    if (timer.signal.aborted && !init.signal?.aborted)
      throw new ClientFailure(
        "infrastructure",
        `no answer from ${whereOf(url)} within ${CLIENT_LIMITS.headMs / 1000} s (connecting and the answer's head)`,
      );
    if ((error as Error).name === "AbortError") throw error;
    throw new ClientFailure("infrastructure", describeNetworkError(error, whereOf(url)));
  } finally {
    clearTimeout(late);
  }
  const refused = guard.refused?.(response.status);
  if (refused !== undefined) {
    await response.body?.cancel().catch(() => {});
    throw new ClientFailure("infrastructure", refused);
  }
  return response;
}

/** The response with its body read through a counter: past its bound, idle or too slow, it ends in a ClientFailure. */
async function bounded(url: URL, response: Response, guard: Guard): Promise<Response> {
  const where = whereOf(url);
  const sse = response.status < 400 && /^text\/event-stream/i.test(response.headers.get("content-type") ?? "");
  const limit = response.status >= 400 ? CLIENT_LIMITS.errorBytes : guard.maxBytes;
  const what = response.status >= 400 ? "an error answer" : guard.what;
  const source = response.body;
  if (source === null || NO_BODY.has(response.status)) return response;
  const reader = source.getReader();
  const sseBound = new SseBound(CLIENT_LIMITS.sseBytes);
  let total = 0;
  let failed = false;
  let idle: NodeJS.Timeout | undefined;
  let whole: NodeJS.Timeout | undefined;
  const stop = () => {
    clearTimeout(idle);
    clearTimeout(whole);
  };
  let fail: (words: string) => void = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      fail = (words) => {
        if (failed) return;
        failed = true;
        stop();
        controller.error(new ClientFailure("infrastructure", words));
        void reader.cancel().catch(() => {});
      };
      if (!sse)
        whole = setTimeout(
          () => fail(`${where} took over ${CLIENT_LIMITS.bodyMs / 1000} s to send ${what}`),
          CLIENT_LIMITS.bodyMs,
        );
    },
    async pull(controller) {
      // Idle counts only while a read waits on the server, never while the reader above is busy.
      idle = setTimeout(() => fail(`${where} sent nothing for ${CLIENT_LIMITS.idleMs / 1000} s`), CLIENT_LIMITS.idleMs);
      let chunk: Awaited<ReturnType<typeof reader.read>>;
      try {
        chunk = await reader.read();
      } catch (error) {
        if (!failed) fail(describeNetworkError(error, where));
        return;
      } finally {
        clearTimeout(idle);
      }
      if (failed) return;
      if (chunk.done) {
        stop();
        controller.close();
        return;
      }
      total += chunk.value.length;
      const over = sse
        ? sseBound.take(chunk.value)
        : total > limit
          ? `${what} from ${where} passed ${limit} bytes (the bound for ${what})`
          : undefined;
      if (over !== undefined) return fail(sse ? `${over} from ${where} (the bound for a stream)` : over);
      controller.enqueue(chunk.value);
    },
    cancel(reason) {
      failed = true;
      stop();
      return reader.cancel(reason);
    },
  });
  const answer = new Response(stream, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  if (response.status < 400) return answer;
  // An error answer is read at once (within its bound), kept for its details, and handed on as read.
  const text = await answer.text();
  guard.onError?.({ where, status: response.status, statusText: response.statusText, text });
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** Counts an SSE body's bytes by line and by event: words for the first bound passed, else undefined. */
export class SseBound {
  private line = 0;
  private event = 0;
  private lastCr = false;

  constructor(private readonly max: number) {}

  take(chunk: Uint8Array): string | undefined {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(10, start);
      const end = newline < 0 ? chunk.length : newline;
      if (end > start) this.lastCr = chunk[end - 1] === 13;
      this.line += end - start;
      this.event += end - start;
      // An event holds its lines, so it passes the bound first (or with its only line): the same wherever cut.
      if (this.event > this.max) return `an SSE ${this.event === this.line ? "line" : "event"} over ${this.max} bytes`;
      if (newline < 0) return undefined;
      // A line with nothing on it (but a CR) ends the event.
      if (this.line === 0 || (this.line === 1 && this.lastCr)) this.event = 0;
      else this.event += 1;
      this.line = 0;
      this.lastCr = false;
      start = newline + 1;
    }
  }
}
