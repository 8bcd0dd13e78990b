// Bearer authentication on every /a2a/ route (CONTRACT 8.1). Hono's bearerAuth reads the header and answers with
// `WWW-Authenticate: Bearer ...`; tokens are compared in constant time (src/io/token-match.ts). A header that is not a
// bearer token is a 401 too. docs/security.md.
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { AUTH_WORDS, tokenMatcher } from "../io/token-match.js";
import { refusal } from "./responses.js";

export function bearer(token: string): MiddlewareHandler {
  const matches = tokenMatcher(token);
  const unauthenticated = (message: string) => () => refusal(401, "UNAUTHENTICATED", message);
  return bearerAuth({
    verifyToken: (presented) => matches(presented),
    noAuthenticationHeader: { message: unauthenticated(AUTH_WORDS.missing) },
    invalidAuthenticationHeader: { message: unauthenticated(AUTH_WORDS.notBearer) },
    invalidToken: { message: unauthenticated(AUTH_WORDS.invalid) },
  });
}
