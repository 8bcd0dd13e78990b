// Bearer authentication on every /a2a/ route (CONTRACT 8.1). Hono's bearerAuth reads the header and answers with
// `WWW-Authenticate: Bearer ...`; tokens are compared in constant time, a connection's repeated token without
// digesting it again (src/io/token-match.ts). A header that is not a bearer token is a 401 too. docs/security.md.
import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { AUTH_WORDS, connectionTokenMatcher } from "../io/token-match.js";
import { refusal } from "./responses.js";

/** `passed` is told of each request whose token matched, before the next middleware runs. */
export function bearer(token: string, passed?: (c: Context) => void): MiddlewareHandler {
  const matches = connectionTokenMatcher(token);
  const unauthenticated = (message: string) => () => refusal(401, "UNAUTHENTICATED", message);
  return bearerAuth({
    // The connection under the node adapter: its last token's digest is kept with it (src/io/token-match.ts).
    verifyToken: (presented, c) => {
      const match = matches(presented, (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket);
      if (match) passed?.(c);
      return match;
    },
    noAuthenticationHeader: { message: unauthenticated(AUTH_WORDS.missing) },
    invalidAuthenticationHeader: { message: unauthenticated(AUTH_WORDS.notBearer) },
    invalidToken: { message: unauthenticated(AUTH_WORDS.invalid) },
  });
}
