// Bearer authentication on every /a2a/ route (CONTRACT 8.1). A request whose `Authorization: Bearer <token>` holds
// the server's token goes on at once; any other is answered by Hono's bearerAuth, which says why, with
// `WWW-Authenticate: Bearer ...`. Tokens are compared in constant time, a connection's repeated header without
// reading and digesting it again (src/io/token-match.ts). A header that is not a bearer token is a 401 too.
// docs/security.md.
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { AUTH_WORDS, connectionTokenMatcher, tokenMatcher } from "../io/token-match.js";
import { headerOf } from "./request-headers.js";
import { refusal } from "./responses.js";

/** The token characters bearerAuth takes (RFC 6750's b64token). */
const TOKEN = /^[A-Za-z0-9._~+/-]+=*$/;
const PREFIX = "bearer ";

/** The token of an `Authorization` value as bearerAuth reads it, or undefined where bearerAuth refuses it. */
export function presentedToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  if (!header.startsWith("Bearer ") && header.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return undefined;
  const token = header.slice(PREFIX.length).trimStart();
  return token !== "" && TOKEN.test(token) ? token : undefined;
}

/** `passed` is told of each request whose token matched, before the next middleware runs. */
export function bearer(token: string, passed?: (c: Context) => void): MiddlewareHandler {
  // The header as a whole is what a connection's last one is compared with: a client's repeated header is read once.
  const matches = connectionTokenMatcher(token, presentedToken);
  const verify = tokenMatcher(token);
  const unauthenticated = (message: string) => () => refusal(401, "UNAUTHENTICATED", message);
  const refuse = bearerAuth({
    verifyToken: (presented) => verify(presented),
    noAuthenticationHeader: { message: unauthenticated(AUTH_WORDS.missing) },
    invalidAuthenticationHeader: { message: unauthenticated(AUTH_WORDS.notBearer) },
    invalidToken: { message: unauthenticated(AUTH_WORDS.invalid) },
  });
  return async (c, next) => {
    const connection = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket;
    // The token matched: on at once. Anything else is refused, in bearerAuth's words and headers.
    if (!matches(headerOf(c, "authorization"), connection)) return refuse(c, next);
    passed?.(c);
    await next();
  };
}
