// Whether a presented bearer token is the server's (src/io/token-match.ts), also when a connection's last token is
// remembered: a connection that changes its token is judged on the new one, every time.
import assert from "node:assert/strict";
import { test } from "node:test";
import { connectionTokenMatcher, tokenMatcher } from "../../src/io/token-match.js";

test("the server's token matches, any other does not", () => {
  const matches = tokenMatcher("s3cret");
  assert.equal(matches("s3cret"), true);
  assert.equal(matches("s3cre"), false);
  assert.equal(matches(""), false);
});

test("a connection's remembered token never stands for another one", () => {
  const matches = connectionTokenMatcher("s3cret");
  const connection = {};
  const other = {};
  assert.equal(matches("wrong", connection), false);
  assert.equal(matches("wrong", connection), false);
  assert.equal(matches("s3cret", connection), true);
  assert.equal(matches("s3cret", connection), true);
  assert.equal(matches("s3cretX", connection), false);
  assert.equal(matches("s3cret", connection), true);
  assert.equal(matches("wrong", other), false);
  assert.equal(matches("s3cret", undefined), true);
  assert.equal(matches("wrong", undefined), false);
});

test("a connection's remembered header is read again once it changes, and one with no token never matches", () => {
  const read = (header: string) => (header.startsWith("Bearer ") ? header.slice(7) : undefined);
  const matches = connectionTokenMatcher("s3cret", read);
  const connection = {};
  assert.equal(matches("Bearer s3cret", connection), true);
  assert.equal(matches("Bearer s3cret", connection), true);
  assert.equal(matches("Basic s3cret", connection), false);
  assert.equal(matches("s3cret", connection), false);
  assert.equal(matches(undefined, connection), false);
  assert.equal(matches("Bearer s3cret", connection), true);
  assert.equal(matches("Bearer wrong", {}), false);
});
