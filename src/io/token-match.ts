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

/**
 * `tokenMatcher` for requests that come on kept-alive connections: the digest of the last token presented on each
 * connection is kept with it (one per connection, gone with the connection), so a client that sends the same
 * `Authorization` at every request is not digested again (docs/benchmarks.md, "Where the cost is"). The digests are
 * still compared with timingSafeEqual at every request; the one plain comparison is of the token presented now with
 * the one presented before on the same connection, both the client's own, never with the server's.
 */
export function connectionTokenMatcher(token: string): (presented: string, connection: object | undefined) => boolean {
  const expected = digest(token);
  const last = new WeakMap<object, { presented: string; digest: Buffer }>();
  return (presented, connection) => {
    let seen = connection === undefined ? undefined : last.get(connection);
    if (seen === undefined || seen.presented !== presented) {
      seen = { presented, digest: digest(presented) };
      if (connection !== undefined) last.set(connection, seen);
    }
    return crypto.timingSafeEqual(seen.digest, expected);
  };
}

/** The words of each refusal of a token, the same on HTTP and gRPC. */
export const AUTH_WORDS = {
  missing: "a bearer token is required: Authorization: Bearer <token>",
  notBearer: "expected Authorization: Bearer <token>, found another kind of credential",
  invalid: "the bearer token is not valid",
};
