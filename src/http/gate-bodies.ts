// The HTTP side of the request gate (src/gate/request-gate.ts): every body under /a2a/ is read here, bounded, and
// judged once, after the Host, Origin and token checks and before any route reads it. A body over the limit is 413
// on every route (CONTRACT 8.1, 8.3); any other refusal is kept for the route, which answers it in its binding's
// shapes. Routes take the judged body from `gated`, never from the request.
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { type GateVerdict, passGate, tooLarge } from "../gate/request-gate.js";
import { headerOf } from "./request-headers.js";
import { refusal } from "./responses.js";

const verdicts = new WeakMap<Request, GateVerdict>();
const EMPTY: GateVerdict = { ok: true, value: {}, refused: new Map() };

/** The gate's verdict on this request's body (a REST request without a body: `{}`). */
export function gated(c: Context): GateVerdict {
  return verdicts.get(c.req.raw) ?? EMPTY;
}

/** True when the request carries a body: a non-zero Content-Length, or a chunked one. */
function hasBody(c: Context): boolean {
  const length = headerOf(c, "content-length");
  if (length !== undefined) return length.trim() !== "0";
  return headerOf(c, "transfer-encoding") !== undefined;
}

export function gateBodies(maxBytes: number): MiddlewareHandler {
  return async (c, next) => {
    const jsonRpc = c.req.path.startsWith("/a2a/jsonrpc");
    // REST reads a body only where one was sent; a JSON-RPC call is its body.
    if (!jsonRpc && !hasBody(c)) return next();
    const read = await readBounded(c, maxBytes);
    if ("over" in read) {
      const { words } = tooLarge(read.over, maxBytes, "");
      // The rest of the body is not read: the connection closes after the answer.
      return refusal(413, "RESOURCE_EXHAUSTED", words, {
        Connection: "close",
      });
    }
    verdicts.set(
      c.req.raw,
      passGate({
        shape: jsonRpc ? "jsonrpc" : "rest",
        bytes: read.bytes,
        maxBytes,
        contentType: headerOf(c, "content-type"),
        checkContentType: true,
      }),
    );
    return next();
  };
}

/**
 * The body's bytes, or how many there were once past `max` (a declared Content-Length over it is refused unread).
 * Under the node adapter the body is read straight from node's IncomingMessage, which costs less than the web
 * Request path.
 */
async function readBounded(c: Context, max: number): Promise<{ bytes: Buffer } | { over: number }> {
  const declared = Number(headerOf(c, "content-length") ?? 0);
  if (declared > max) return { over: declared };
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (!incoming || incoming.readableDidRead) {
    const bytes = Buffer.from(await c.req.arrayBuffer());
    return bytes.length > max ? { over: bytes.length } : { bytes };
  }
  // Listeners, not `for await`: an async iterator costs more than the rest of reading a small body.
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        incoming.off("data", onData);
        incoming.pause();
        chunks.length = 0;
        resolve({ over: size });
      } else chunks.push(chunk);
    };
    incoming.on("data", onData);
    incoming.once("end", () => resolve({ bytes: Buffer.concat(chunks, size) }));
    incoming.once("error", reject);
    incoming.once("close", () => {
      if (!incoming.complete) reject(new Error("the client closed the connection before the body's end"));
    });
  });
}
