// Bearer authentication on every /a2a/ route (CONTRACT 8.1). Hono's bearerAuth reads the header and answers with
// `WWW-Authenticate: Bearer ...`; tokens are compared as SHA-256 digests with timingSafeEqual, so the time taken says
// nothing about how much of a guess was right. A header that is not a bearer token is a 401 too. docs/security.md.
import * as crypto from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { refusal } from "./responses.js";

// crypto.hash (Node 20.12+) is the one-shot form, a few µs less per request than a Hash object.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;
const digest = oneShot
  ? (text: string) => oneShot("sha256", text, "buffer")
  : (text: string) => crypto.createHash("sha256").update(text, "utf8").digest();

export function bearer(token: string): MiddlewareHandler {
  const expected = digest(token);
  const unauthenticated = (message: string) => () => refusal(401, "UNAUTHENTICATED", message);
  return bearerAuth({
    verifyToken: (presented) => crypto.timingSafeEqual(digest(presented), expected),
    noAuthenticationHeader: { message: unauthenticated("a bearer token is required: Authorization: Bearer <token>") },
    invalidAuthenticationHeader: {
      message: unauthenticated("expected Authorization: Bearer <token>, found another kind of credential"),
    },
    invalidToken: { message: unauthenticated("the bearer token is not valid") },
  });
}
