// Signed agent cards against the built binary (docs/reference.md, "Signed cards"): the card and the extended card
// verify, with jose and with the A2A SDK's verifier, against the key set fetched from the jku of their protected
// header; --signing-key takes PEM and JWK keys and refuses a bad one at once (exit 2); a key kept in --state-dir
// survives a restart. The TCK's signing checks (a2aproject/a2a-tck, tests/compatibility/agent_card/
// test_agent_card_signing.py: CARD-SIGN-001/002, the signature verifies over the §8.4.1 payload; CARD-SIGN-003, the
// protected header has alg and kid) are named where they are proven; the TCK verifies with a trusted key only,
// here the key set of the jku is trusted, since the test started the server.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { canonicalizeAgentCard, verifyAgentCardSignature } from "@a2a-js/sdk";
import {
  base64url,
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeProtectedHeader,
  flattenedVerify,
  type JWK,
  type JWSHeaderParameters,
} from "jose";
import { cardPayload } from "../../src/a2a/card-payload.js";
import { startBridge } from "../helpers/bridge.js";
import { AT_ONCE, FIXTURES, runCli } from "../helpers/cli.js";
import { type HttpServer, startHttp } from "../helpers/http-server.js";
import { tempDir } from "../helpers/state-dir.js";
import type { Wire } from "../helpers/wire.js";

const V1 = { "A2A-Version": "1.0" };
type Signed = { signatures: Array<{ protected: string; signature: string }> } & Record<string, unknown>;

/**
 * The card's two signatures verified with jose against `jwks`: the first over the payload of A2A 1.0 §8.4.1, the
 * second over the one the A2A SDK computes; the protected header, the same on both, is returned.
 */
async function verified(card: Signed, jwks: { keys: JWK[] }): Promise<JWSHeaderParameters> {
  assert.equal(card.signatures.length, 2);
  const { signatures, ...unsigned } = card;
  const payloads = [cardPayload(unsigned), canonicalizeAgentCard(card as never)];
  const headers: JWSHeaderParameters[] = [];
  for (const [index, signature] of signatures.entries()) {
    const payload = base64url.encode(payloads[index] as string);
    const { protectedHeader } = await flattenedVerify({ ...signature, payload }, createLocalJWKSet(jwks));
    assert.ok(protectedHeader);
    headers.push(protectedHeader);
  }
  assert.deepEqual(headers[1], headers[0]);
  // CARD-SIGN-003: alg and kid, non-empty strings.
  for (const name of ["alg", "kid"] as const) {
    const value = headers[0]?.[name];
    assert.ok(typeof value === "string" && value !== "", `${name}: ${value}`);
  }
  return headers[0] as JWSHeaderParameters;
}

/** The A2A SDK's own verifier, its key found by kid in `jwks` (its console.debug of a refusal muted). */
async function sdkVerified(card: Signed, jwks: { keys: JWK[] }): Promise<void> {
  const debug = console.debug;
  console.debug = () => {};
  try {
    await verifyAgentCardSignature(async (kid) => {
      const key = jwks.keys.find((entry) => entry.kid === kid);
      if (!key) throw new Error(`no key ${kid} in the key set`);
      return key;
    })(card as never);
  } finally {
    console.debug = debug;
  }
}

/** The key set named by the card's jku, fetched from the server (without a token: it is public). */
async function jwksOf(server: HttpServer, card: Signed): Promise<{ keys: JWK[] }> {
  const { jku } = decodeProtectedHeader(card.signatures[0] as { protected: string });
  assert.equal(decodeProtectedHeader(card.signatures[1] as { protected: string }).jku, jku);
  assert.equal(jku, `${server.url}/.well-known/jwks.json`);
  const answer = await server.fetch(jku as string, { noAuth: true });
  assert.equal(answer.status, 200, answer.text);
  assert.match(String(answer.headers["content-type"]), /^application\/jwk-set\+json/);
  return answer.body as { keys: JWK[] };
}

function keyFile(dir: string, name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text, { mode: 0o600 });
  return file;
}

describe("serve --http: signed cards, a fresh key", () => {
  let server: HttpServer;
  before(async () => {
    server = await startHttp();
  });
  after(async () => {
    await server.close();
  });

  it("CARD-SIGN-001/002/003: the card verifies against the key set at its jku, with jose and with the A2A SDK", async () => {
    const answer = await server.fetch("/.well-known/agent-card.json", { noAuth: true });
    assert.equal(answer.status, 200);
    const card = answer.body as Signed;
    const jwks = await jwksOf(server, card);
    const header = await verified(card, jwks);
    assert.equal(header.alg, "EdDSA");
    assert.equal(header.typ, "JOSE");
    assert.equal(header.kid, await calculateJwkThumbprint(jwks.keys[0] as JWK));
    await sdkVerified(card, jwks);
    assert.match(server.stderr, new RegExp(`signing the agent cards with key ${header.kid} \\(EdDSA, a fresh key`));
  });

  it("the extended card, on HTTP+JSON and on JSON-RPC, is signed by the same key", async () => {
    const rest = (await server.fetch("/a2a/rest/extendedAgentCard", { headers: V1 })).body as Signed;
    const rpc = (await server.call("GetExtendedAgentCard", {}, V1)) as Signed;
    for (const card of [rest, rpc]) {
      assert.ok((card.capabilities as Wire).extensions[0].params.workspace, "the operator's setup is in it");
      const jwks = await jwksOf(server, card);
      await verified(card, jwks);
      await sdkVerified(card, jwks);
    }
  });

  it("a card changed in one field, or its protected header changed, is refused", async () => {
    const card = (await server.fetch("/.well-known/agent-card.json", { noAuth: true })).body as Signed;
    const jwks = await jwksOf(server, card);
    const forged = card.signatures.map((signature) => ({
      ...signature,
      protected: base64url.encode(
        JSON.stringify({ ...decodeProtectedHeader(signature), jku: "http://evil.example/jwks.json" }),
      ),
    }));
    for (const tampered of [
      { ...card, description: "Runs anything." },
      { ...card, signatures: forged },
    ]) {
      await assert.rejects(verified(tampered, jwks), { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
      await assert.rejects(sdkVerified(tampered, jwks), /No valid signatures/);
    }
  });

  it("the key set: public key only, cached like the card (ETag, 304); the jku follows the Host the client used", async () => {
    const answer = await server.fetch("/.well-known/jwks.json", { noAuth: true });
    const [key] = (answer.body as { keys: JWK[] }).keys as [JWK];
    assert.deepEqual(Object.keys(key).sort(), ["alg", "crv", "kid", "kty", "use", "x"]);
    assert.match(String(answer.headers["cache-control"]), /max-age=60/);
    const etag = String(answer.headers.etag);
    const again = await server.fetch("/.well-known/jwks.json", { noAuth: true, headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);

    const port = new URL(server.url).port;
    const card = (await server.fetch("/.well-known/agent-card.json", { headers: { Host: `localhost:${port}` } }))
      .body as Signed;
    assert.equal(
      decodeProtectedHeader(card.signatures[0] as { protected: string }).jku,
      `http://localhost:${port}/.well-known/jwks.json`,
    );
  });
});

// Each test starts its own server with a key file of its own: they run at once.
describe("serve --signing-key", { concurrency: AT_ONCE }, () => {
  const dir = tempDir("signing");

  it("a PEM Ed25519 key: the key set holds its public key, and the card verifies", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ed25519");
    const file = keyFile(dir, "ed.pem", privateKey.export({ type: "pkcs8", format: "pem" }) as string);
    const server = await startHttp(["--signing-key", file]);
    try {
      const card = (await server.fetch("/.well-known/agent-card.json", { noAuth: true })).body as Signed;
      const jwks = await jwksOf(server, card);
      const expected = publicKey.export({ format: "jwk" }) as JWK;
      assert.equal(jwks.keys[0]?.x, expected.x);
      assert.equal((await verified(card, jwks)).kid, await calculateJwkThumbprint(expected));
    } finally {
      await server.close();
    }
  });

  it("a JWK ES256 key: the card's text, ETag and 304 stay the same from one GET to the next", async () => {
    const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const file = keyFile(dir, "es.jwk", JSON.stringify(privateKey.export({ format: "jwk" })));
    const server = await startHttp(["--signing-key", file]);
    try {
      const first = await server.fetch("/.well-known/agent-card.json", { noAuth: true });
      const second = await server.fetch("/.well-known/agent-card.json", { noAuth: true });
      assert.equal(second.text, first.text);
      assert.equal(second.headers.etag, first.headers.etag);
      const cached = await server.fetch("/.well-known/agent-card.json", {
        noAuth: true,
        headers: { "If-None-Match": String(first.headers.etag) },
      });
      assert.equal(cached.status, 304);
      const card = first.body as Signed;
      assert.equal((await verified(card, await jwksOf(server, card))).alg, "ES256");
    } finally {
      await server.close();
    }
  });

  it("serve --stdio: the extended card is signed with the kid and no jku (stdio has no URL)", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    const file = keyFile(dir, "stdio.jwk", JSON.stringify(privateKey.export({ format: "jwk" })));
    const bridge = startBridge({ args: ["--signing-key", file] });
    try {
      const card = (await bridge.call("GetExtendedAgentCard", {})) as Signed;
      const jwk = publicKey.export({ format: "jwk" }) as JWK;
      const kid = await calculateJwkThumbprint(jwk);
      const header = await verified(card, { keys: [{ ...jwk, kid }] });
      assert.equal(header.kid, kid);
      assert.equal(header.jku, undefined);
    } finally {
      await bridge.close();
    }
  });

  // Every kind of bad key, and the words for each, is test/unit/card-signature.test.ts › "parseSigningKey" ›
  // "refuses other keys, …": here each kind goes through the binary once, the two bindings taking turns.
  it("a bad key file: exit 2 at once, saying what was expected and what was found, on both bindings", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 }).privateKey.export({ type: "pkcs8", format: "pem" });
    const ed = generateKeyPairSync("ed25519");
    const cases: Array<[string, string, RegExp]> = [
      ["rsa.pem", rsa as string, /found an RSA key/],
      ["public.pem", ed.publicKey.export({ type: "spki", format: "pem" }) as string, /found a public key only/],
      ["public.jwk", JSON.stringify(ed.publicKey.export({ format: "jwk" })), /found a public OKP JWK only/],
      ["noise", "\u0000\u00ff garbage", /found neither a PEM block nor a JSON object/],
    ];
    const bindings = [["--http", "--port", "0"], ["--stdio"]];
    await Promise.all(
      cases.map(async ([name, text, found], index) => {
        const file = keyFile(dir, name, text);
        const binding = bindings[index % bindings.length] as string[];
        const result = await runCli(["serve", ...binding, "--workspace", FIXTURES, "--signing-key", file]);
        assert.equal(result.code, 2, `${name} ${binding[0]}: ${result.stderr}`);
        assert.match(result.stderr, /expected an Ed25519 or P-256 private key, as PEM \(PKCS#8\) or as a JWK/);
        assert.match(result.stderr, found);
        assert.equal(result.stdout, "");
      }),
    );
    const missing = await runCli([
      "serve",
      "--http",
      "--port",
      "0",
      "--workspace",
      FIXTURES,
      "--signing-key",
      join(dir, "none.pem"),
    ]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /cannot read --signing-key .*none\.pem: ENOENT/);
  });

  it("a key file others can read: served, with a warning", async () => {
    const { privateKey } = generateKeyPairSync("ed25519");
    const file = keyFile(dir, "open.pem", privateKey.export({ type: "pkcs8", format: "pem" }) as string);
    chmodSync(file, 0o644);
    const server = await startHttp(["--signing-key", file]);
    try {
      assert.match(server.stderr, /--signing-key .*open\.pem can be read by other users \(mode 644\); chmod 600 it/);
    } finally {
      await server.close();
    }
  });
});

describe("serve --state-dir: the kept key", () => {
  it("is made with mode 0600 and signs with the same kid after a restart; damaged, it is refused", async () => {
    const dir = tempDir("signing-state");
    const kidOf = async () => {
      const server = await startHttp(["--state-dir", dir]);
      try {
        const card = (await server.fetch("/.well-known/agent-card.json", { noAuth: true })).body as Signed;
        return (await verified(card, await jwksOf(server, card))).kid;
      } finally {
        await server.close();
      }
    };
    const first = await kidOf();
    const file = join(dir, "signing-key.pem");
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(await kidOf(), first);

    writeFileSync(file, readFileSync(file, "utf8").slice(0, 60));
    const result = await runCli(["serve", "--http", "--port", "0", "--workspace", FIXTURES, "--state-dir", dir]);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /the kept signing key .*signing-key\.pem, found .*; move .* away to make a new key/);
  });
});
