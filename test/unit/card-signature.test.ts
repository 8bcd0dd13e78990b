// Signed agent cards (docs/reference.md, "Signed cards"): the first payload is A2A 1.0 §8.4.1's (its own example
// as a test vector), the second the one the A2A SDK computes on verifying; the signatures verify with jose against
// the served key set and with the SDK's own verifier, and a card or a protected header changed after signing is
// refused. The keys: PEM and JWK, Ed25519 and P-256, and clear
// refusals of anything else.
import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { canonicalizeAgentCard, verifyAgentCardSignature } from "@a2a-js/sdk";
import fc from "fast-check";
import { base64url, createLocalJWKSet, flattenedVerify, type JWK } from "jose";
import { agentCard10, extendedCard, type OperatorSetup, stdioCard10 } from "../../src/a2a/card.js";
import { cardPayload, sdkCardPayload } from "../../src/a2a/card-payload.js";
import { type AgentCardSignature, CardSigner, jwksUrl } from "../../src/a2a/card-signature.js";
import { parseSigningKey, SigningKeyError } from "../../src/a2a/signing-key.js";
import { KEPT_KEY_FILE, obtainSigningKey } from "../../src/store/signing-key-file.js";
import { tempDir } from "../helpers/state-dir.js";

const INSTANCE = "0b8e1f2c-4a5d-4e6f-8a7b-9c0d1e2f3a4b";
const BASE = "http://127.0.0.1:41241";
const SETUP: OperatorSetup = {
  workspace: "/srv/work",
  limits: { max_concurrent: 4, max_output_bytes: 8, settle_ms: 150, max_line_bytes: null, max_body_bytes: 1024 },
  state_dir: false,
  containment: "process-group",
};
const CARDS: Record<string, Record<string, unknown>> = {
  "the HTTP card": agentCard10("1.2.3", INSTANCE, BASE),
  "the HTTP extended card": extendedCard(agentCard10("1.2.3", INSTANCE, BASE), SETUP),
  "the stdio card": stdioCard10("1.2.3", INSTANCE),
  "the stdio extended card": extendedCard(stdioCard10("1.2.3", INSTANCE), {
    ...SETUP,
    limits: { ...SETUP.limits, max_line_bytes: 10, max_body_bytes: null },
  }),
};

type SignedCard = Record<string, unknown> & { signatures: AgentCardSignature[] };

function pem(type: "ed25519" | "p256"): string {
  const { privateKey } =
    type === "ed25519" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  return privateKey.export({ type: "pkcs8", format: "pem" }) as string;
}

function jwk(type: "ed25519" | "p256"): JWK {
  const { privateKey } =
    type === "ed25519" ? generateKeyPairSync("ed25519") : generateKeyPairSync("ec", { namedCurve: "P-256" });
  return privateKey.export({ format: "jwk" }) as JWK;
}

const signerOf = async (type: "ed25519" | "p256") => new CardSigner(await parseSigningKey(pem(type), "a test key"));

/** Verifies `card`'s first signature as A2A 1.0 §8.4.3 says: its payload recomputed, the key found by kid. */
async function verify(card: SignedCard, jwks: { keys: JWK[] }) {
  const { signatures, ...unsigned } = card;
  const [signature] = signatures;
  assert.ok(signature);
  return flattenedVerify({ ...signature, payload: base64url.encode(cardPayload(unsigned)) }, createLocalJWKSet(jwks));
}

/** The SDK's verifier, with the public key looked up by kid in `jwks` (its console.debug of each refusal muted). */
async function sdkVerify(card: SignedCard, jwks: { keys: JWK[] }): Promise<void> {
  const debug = console.debug;
  console.debug = () => {};
  try {
    await verifyAgentCardSignature(async (kid) => {
      const key = jwks.keys.find((entry) => entry.kid === kid);
      if (!key) throw new Error(`no key ${kid}`);
      return key;
    })(card as never);
  } finally {
    console.debug = debug;
  }
}

describe("the JWS payloads", () => {
  it("cardPayload: the example of A2A 1.0 §8.4.1 gives the text it shows", () => {
    const fragment = {
      name: "Example Agent",
      description: "",
      capabilities: { streaming: false, pushNotifications: false, extensions: [] },
      skills: [],
    };
    assert.equal(
      cardPayload(fragment),
      '{"capabilities":{"pushNotifications":false,"streaming":false},"description":"","name":"Example Agent","skills":[]}',
    );
  });

  it("cardPayload covers every field of the card (the 0.3 ones too) but signatures and proto3 defaults", () => {
    const card = CARDS["the HTTP extended card"] as Record<string, unknown>;
    const payload = cardPayload({ ...card, signatures: [{ protected: "x", signature: "y" }] });
    assert.equal(payload, cardPayload(card));
    const parsed = JSON.parse(payload);
    assert.deepEqual(Object.keys(parsed), Object.keys(card).sort());
    // AgentExtension.required is a plain bool: false is left out, true kept; a Struct is kept as it is.
    const [adapter, hitl, runtime] = parsed.capabilities.extensions;
    assert.equal("required" in adapter, false);
    assert.deepEqual(hitl.params, {});
    assert.equal(runtime.required, undefined);
    assert.equal(adapter.params.limits.max_line_bytes, null);
    // A map entry whose StringList is empty is an empty message, kept.
    assert.deepEqual(parsed.securityRequirements, [{ schemes: { bearer: {} } }]);
    assert.doesNotMatch(payload, /\n|": /);
  });

  for (const [name, card] of Object.entries(CARDS))
    it(`sdkCardPayload is what the A2A SDK canonicalizes for ${name}`, () => {
      assert.equal(sdkCardPayload(card), canonicalizeAgentCard(card as never));
    });
});

describe("CardSigner", () => {
  for (const type of ["ed25519", "p256"] as const)
    it(`${type}: the card verifies with jose against the JWKS and with the SDK's verifier`, async () => {
      const signer = await signerOf(type);
      const jwks = signer.jwks();
      assert.equal(jwks.keys.length, 1);
      assert.equal("d" in (jwks.keys[0] as JWK), false, "the key set holds the public key only");
      for (const card of Object.values(CARDS)) {
        const signed = (await signer.sign(card, jwksUrl(BASE))) as SignedCard;
        assert.equal(signed.signatures.length, 2, "one over each payload");
        for (const signature of signed.signatures)
          assert.deepEqual(Object.keys(signature).sort(), ["protected", "signature"]);
        const { protectedHeader } = await verify(signed, jwks);
        assert.deepEqual(protectedHeader, {
          alg: type === "ed25519" ? "EdDSA" : "ES256",
          typ: "JOSE",
          kid: signer.key.kid,
          jku: `${BASE}/.well-known/jwks.json`,
        });
        await sdkVerify(signed, jwks);
      }
    });

  it("without a jku (stdio) the header has the kid only", async () => {
    const signer = await signerOf("ed25519");
    const signed = (await signer.sign(CARDS["the stdio card"] as Record<string, unknown>)) as SignedCard;
    const { protectedHeader } = await verify(signed, signer.jwks());
    assert.equal(protectedHeader?.jku, undefined);
    assert.equal(protectedHeader?.kid, signer.key.kid);
  });

  it("a changed 0.3 field (outside the SDKs' payload) is refused by a verifier of the §8.4.1 payload", async () => {
    const signer = await signerOf("ed25519");
    const jwks = signer.jwks();
    const signed = (await signer.sign(CARDS["the HTTP card"] as Record<string, unknown>, jwksUrl(BASE))) as SignedCard;
    const moved = { ...signed, url: "http://evil.example/a2a/jsonrpc" };
    await assert.rejects(verify(moved, jwks), { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
    // What the SDKs do not read, they cannot check (docs/security.md, "Signed agent cards").
    await sdkVerify(moved, jwks);
  });

  it("a card with one field changed, or with another card's signature, is refused", async () => {
    const signer = await signerOf("p256");
    const jwks = signer.jwks();
    const signed = (await signer.sign(CARDS["the HTTP card"] as Record<string, unknown>, jwksUrl(BASE))) as SignedCard;
    const tampered = [
      { ...signed, name: "someone-else" },
      { ...signed, version: "9.9.9" },
      {
        ...signed,
        supportedInterfaces: [{ url: "http://evil.example/a2a", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      },
      { ...signed, capabilities: { ...(signed.capabilities as object), pushNotifications: false } },
      { ...(CARDS["the HTTP extended card"] as object), signatures: signed.signatures } as SignedCard,
    ];
    for (const card of tampered) {
      await assert.rejects(verify(card, jwks), { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
      await assert.rejects(sdkVerify(card, jwks), /No valid signatures/);
    }
  });

  it("a protected header changed after signing is refused", async () => {
    const signer = await signerOf("ed25519");
    const jwks = signer.jwks();
    const signed = (await signer.sign(CARDS["the HTTP card"] as Record<string, unknown>, jwksUrl(BASE))) as SignedCard;
    const [signature] = signed.signatures as [AgentCardSignature];
    const header = JSON.parse(new TextDecoder().decode(base64url.decode(signature.protected)));
    const forged = base64url.encode(JSON.stringify({ ...header, jku: "http://evil.example/jwks.json" }));
    const card = { ...signed, signatures: [{ ...signature, protected: forged }] };
    await assert.rejects(verify(card, jwks), { code: "ERR_JWS_SIGNATURE_VERIFICATION_FAILED" });
    await assert.rejects(sdkVerify(card, jwks), /No valid signatures/);
  });

  it("signs a card once: an ES256 card's text is the same each time; the kept signatures are bounded", async () => {
    const signer = await signerOf("p256");
    const card = CARDS["the HTTP card"] as Record<string, unknown>;
    const first = JSON.stringify(await signer.sign(card, jwksUrl(BASE)));
    assert.equal(JSON.stringify(await signer.sign({ ...card }, jwksUrl(BASE))), first);
    for (let port = 1; port <= 200; port++) {
      const base = `http://127.0.0.1:${port}`;
      await signer.sign(agentCard10("1.2.3", INSTANCE, base), jwksUrl(base));
    }
    assert.ok(signer.kept <= 64, `kept ${signer.kept}`);
  });
});

describe("parseSigningKey", () => {
  it("reads Ed25519 and P-256 keys as PEM and as JWK; the kid is the RFC 7638 thumbprint of the public key", async () => {
    for (const type of ["ed25519", "p256"] as const) {
      const privateJwk = jwk(type);
      const key = await parseSigningKey(JSON.stringify(privateJwk), "k.json");
      assert.equal(key.alg, type === "ed25519" ? "EdDSA" : "ES256");
      assert.equal("d" in key.publicJwk, false);
      const { d: _d, ...publicJwk } = privateJwk;
      assert.deepEqual(key.publicJwk, publicJwk);
      // The same key as PEM has the same kid.
      const { createPrivateKey } = await import("node:crypto");
      const asPem = createPrivateKey({ key: privateJwk as never, format: "jwk" }).export({
        type: "pkcs8",
        format: "pem",
      });
      assert.equal((await parseSigningKey(asPem as string, "k.pem")).kid, key.kid);
      assert.match(key.kid, /^[A-Za-z0-9_-]{43}$/);
    }
  });

  it("refuses other keys, public keys and what is not a key, saying what it expected and what it found", async () => {
    const rsa = generateKeyPairSync("rsa", { modulusLength: 1024 });
    const p384 = generateKeyPairSync("ec", { namedCurve: "P-384" });
    const ed = generateKeyPairSync("ed25519");
    const cases: Array<[string, RegExp]> = [
      [rsa.privateKey.export({ type: "pkcs8", format: "pem" }) as string, /found an RSA key/],
      [p384.privateKey.export({ type: "pkcs8", format: "pem" }) as string, /found an EC key on curve secp384r1/],
      [JSON.stringify(p384.privateKey.export({ format: "jwk" })), /found a EC JWK on curve "P-384"/],
      [ed.publicKey.export({ type: "spki", format: "pem" }) as string, /found a public key only/],
      [JSON.stringify(ed.publicKey.export({ format: "jwk" })), /found a public OKP JWK only \(no "d"\)/],
      [JSON.stringify({ keys: [ed.privateKey.export({ format: "jwk" })] }), /found a JWK Set/],
      [JSON.stringify({ ...ed.privateKey.export({ format: "jwk" }), alg: "ES256" }), /"alg" is "ES256"/],
      [JSON.stringify({ ...ed.privateKey.export({ format: "jwk" }), d: "AAAA" }), /values are not a valid key/],
      ["-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", /PEM "PRIVATE KEY" block that does not hold/],
      ["", /found an empty file/],
      ["{not json", /not JSON/],
      ["hello", /neither a PEM block nor a JSON object/],
    ];
    for (const [text, found] of cases) {
      await assert.rejects(parseSigningKey(text, "--signing-key k"), (error: Error) => {
        assert.ok(error instanceof SigningKeyError, String(error));
        assert.match(
          error.message,
          /^expected an Ed25519 or P-256 private key, as PEM \(PKCS#8\) or as a JWK .* in --signing-key k, found /,
        );
        assert.match(error.message, found);
        return true;
      });
    }
  });

  it("property: any bytes that are not a key give a SigningKeyError, never another error", async () => {
    const keyish = fc.oneof(
      fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes).toString("utf8")),
      fc.json(),
      fc.string().map((body) => `-----BEGIN PRIVATE KEY-----\n${body}\n-----END PRIVATE KEY-----`),
      fc
        .record({
          kty: fc.constantFrom("OKP", "EC", "RSA", "oct"),
          crv: fc.constantFrom("Ed25519", "P-256", "X25519"),
          d: fc.string(),
          x: fc.string(),
          y: fc.string(),
        })
        .map((value) => JSON.stringify(value)),
    );
    await fc.assert(
      fc.asyncProperty(keyish, async (text) => {
        await assert.rejects(parseSigningKey(text, "k"), SigningKeyError);
      }),
      { numRuns: 200 },
    );
  });
});

describe("obtainSigningKey", () => {
  it("with a state dir: made once with mode 0600, then the same key (same kid) on every start", async () => {
    const dir = tempDir("signing");
    const first = await obtainSigningKey({ stateDir: dir });
    const file = join(dir, KEPT_KEY_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.match(readFileSync(file, "utf8"), /^-----BEGIN PRIVATE KEY-----/);
    const second = await obtainSigningKey({ stateDir: dir });
    assert.equal(second.key.kid, first.key.kid);
    assert.deepEqual(second.warnings, []);
  });

  it("a damaged kept key is refused, naming the file and what to do", async () => {
    const dir = tempDir("signing");
    writeFileSync(join(dir, KEPT_KEY_FILE), "-----BEGIN PRIVATE KEY-----\ngarbage\n", { mode: 0o600 });
    await assert.rejects(obtainSigningKey({ stateDir: dir }), (error: Error) => {
      assert.ok(error instanceof SigningKeyError);
      assert.match(error.message, /signing-key\.pem.*; move .* away to make a new key/);
      return true;
    });
  });

  it("--signing-key: read from the file (before the state dir's), with a warning when others can read it", async () => {
    const dir = tempDir("signing");
    const file = join(dir, "card.pem");
    writeFileSync(file, pem("p256"), { mode: 0o644 });
    const obtained = await obtainSigningKey({ signingKey: file, stateDir: dir });
    assert.equal(obtained.key.alg, "ES256");
    assert.match(obtained.warnings.join("\n"), /card\.pem can be read by other users \(mode 644\); chmod 600 it/);
    await assert.rejects(
      obtainSigningKey({ signingKey: join(dir, "missing.pem") }),
      /cannot read --signing-key .*missing\.pem: ENOENT/,
    );
    await assert.rejects(
      obtainSigningKey({ signingKey: dir }),
      /expected --signing-key .* to be a regular file, found a directory/,
    );
  });

  it("without either: a fresh Ed25519 key each time", async () => {
    const [a, b] = await Promise.all([obtainSigningKey({}), obtainSigningKey({})]);
    assert.equal(a.key.alg, "EdDSA");
    assert.notEqual(a.key.kid, b.key.kid);
  });
});
