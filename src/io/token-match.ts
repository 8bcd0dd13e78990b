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
 * `Authorization` at every request is not read and digested again (docs/benchmarks.md, "Where the cost is"). `read`
 * takes the token out of what is presented (HTTP: the header's value), undefined when there is none to take. The
 * digests are still compared with timingSafeEqual at every request; the one plain comparison is of what is presented
 * now with what was presented before on the same connection, both the client's own, never with the server's.
 */
export function connectionTokenMatcher(
  token: string,
  read: (presented: string) => string | undefined = (presented) => presented,
): (presented: string | undefined, connection: object | undefined) => boolean {
  const expected = digest(token);
  const last = new WeakMap<object, { presented: string; digest: Buffer | undefined }>();
  return (presented, connection) => {
    if (presented === undefined) return false;
    let seen = connection === undefined ? undefined : last.get(connection);
    if (seen === undefined || seen.presented !== presented) {
      const readable = read(presented);
      seen = { presented, digest: readable === undefined ? undefined : digest(readable) };
      if (connection !== undefined) last.set(connection, seen);
    }
    return seen.digest !== undefined && crypto.timingSafeEqual(seen.digest, expected);
  };
}

/** The words of each refusal of a token, the same on HTTP and gRPC. */
export const AUTH_WORDS = {
  missing: "a bearer token is required: Authorization: Bearer <token>",
  notBearer: "expected Authorization: Bearer <token>, found another kind of credential",
  invalid: "the bearer token is not valid",
};
