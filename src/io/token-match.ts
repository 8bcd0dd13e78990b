// Whether a presented token is the server's (HTTP and gRPC, docs/security.md): compared as SHA-256 digests with
// timingSafeEqual, so the time taken says nothing about how much of a guess was right. Also the token's names that
// the server and the client share.
import * as crypto from "node:crypto";

/** The environment variable `serve --http` and the client read the token from (CONTRACT 8.1). */
export const TOKEN_ENV = "ADAPTER_COMMAND_TOKEN";

// crypto.hash (Node 20.12+) is the one-shot form, a few µs less per request than a Hash object.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;
const digest = oneShot
  ? (text: string) => oneShot("sha256", text, "buffer")
  : (text: string) => crypto.createHash("sha256").update(text, "utf8").digest();

export function tokenMatcher(token: string): (presented: string) => boolean {
  const expected = digest(token);
  return (presented) => crypto.timingSafeEqual(digest(presented), expected);
}

/** The words of each refusal of a token, the same on HTTP and gRPC. */
export const AUTH_WORDS = {
  missing: "a bearer token is required: Authorization: Bearer <token>",
  notBearer: "expected Authorization: Bearer <token>, found another kind of credential",
  invalid: "the bearer token is not valid",
};
