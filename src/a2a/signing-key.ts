// The key that signs the agent cards (docs/reference.md, "Signed cards"): an Ed25519 (EdDSA) or P-256 (ES256)
// private key, read from a PEM (PKCS#8, or SEC 1 for P-256) or a private JWK, or made fresh. Its `kid` is its
// RFC 7638 thumbprint, so the same key always has the same id.
import { createPrivateKey, createPublicKey, type KeyObject } from "node:crypto";
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, type JWK } from "jose";

export type CardAlg = "EdDSA" | "ES256";

export interface CardSigningKey {
  privateKey: KeyObject;
  /** The public half (never `d`). */
  publicJwk: JWK;
  kid: string;
  alg: CardAlg;
}

export class SigningKeyError extends Error {}

const EXPECTED = "an Ed25519 or P-256 private key, as PEM (PKCS#8) or as a JWK with its private part (d)";

/** The key in `text`, or a SigningKeyError saying what was expected in `where` and what was found. */
export async function parseSigningKey(text: string, where: string): Promise<CardSigningKey> {
  const refuse = (found: string) => new SigningKeyError(`expected ${EXPECTED} in ${where}, found ${found}`);
  const trimmed = text.trim();
  let privateKey: KeyObject;
  if (trimmed.startsWith("-----BEGIN ")) {
    const label = /^-----BEGIN ([A-Z0-9 ]+)-----/.exec(trimmed)?.[1] ?? "an unnamed block";
    if (label.includes("PUBLIC KEY") || label === "CERTIFICATE") throw refuse(`a ${label.toLowerCase()} only`);
    if (label.includes("ENCRYPTED")) throw refuse("an encrypted key (a passphrase is not supported)");
    try {
      privateKey = createPrivateKey({ key: trimmed, format: "pem" });
    } catch {
      throw refuse(`a PEM "${label}" block that does not hold a private key this runtime can read`);
    }
  } else if (trimmed.startsWith("{")) {
    let jwk: unknown;
    try {
      jwk = JSON.parse(trimmed);
    } catch {
      throw refuse("text that starts like JSON but is not JSON");
    }
    privateKey = keyOfJwk(jwk as Record<string, unknown>, refuse);
  } else {
    throw refuse(trimmed === "" ? "an empty file" : "neither a PEM block nor a JSON object");
  }
  const alg = algOf(privateKey, refuse);
  const publicJwk = await exportJWK(createPublicKey(privateKey));
  return { privateKey, publicJwk, kid: await calculateJwkThumbprint(publicJwk, "sha256"), alg };
}

function keyOfJwk(jwk: Record<string, unknown>, refuse: (found: string) => SigningKeyError): KeyObject {
  if (jwk === null || Array.isArray(jwk)) throw refuse("JSON that is not one JWK object");
  if (Array.isArray(jwk.keys)) throw refuse("a JWK Set (give the one private JWK)");
  if (typeof jwk.kty !== "string") throw refuse('a JSON object without "kty"');
  if (jwk.d === undefined) throw refuse(`a public ${jwk.kty} JWK only (no "d")`);
  if (jwk.kty !== "OKP" && jwk.kty !== "EC") throw refuse(`a JWK of kty "${jwk.kty}"`);
  const crv = jwk.crv;
  if (crv !== "Ed25519" && crv !== "P-256") throw refuse(`a ${jwk.kty} JWK on curve ${JSON.stringify(crv)}`);
  const alg = crv === "Ed25519" ? ["EdDSA", "Ed25519"] : ["ES256"];
  if (jwk.alg !== undefined && !alg.includes(jwk.alg as string))
    throw refuse(`a ${crv} JWK whose "alg" is ${JSON.stringify(jwk.alg)} (expected ${alg.join(" or ")})`);
  try {
    return createPrivateKey({ key: jwk as never, format: "jwk" });
  } catch {
    throw refuse(`a ${crv} JWK whose values are not a valid key`);
  }
}

function algOf(key: KeyObject, refuse: (found: string) => SigningKeyError): CardAlg {
  if (key.asymmetricKeyType === "ed25519") return "EdDSA";
  if (key.asymmetricKeyType === "ec") {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === "prime256v1") return "ES256";
    throw refuse(`an EC key on curve ${curve ?? "unknown"}`);
  }
  throw refuse(`an ${key.asymmetricKeyType?.toUpperCase() ?? "unknown"} key`);
}

/** A new Ed25519 key, and its PKCS#8 PEM for keeping it. */
export async function freshSigningKey(): Promise<{ key: CardSigningKey; pem: string }> {
  const { privateKey } = await generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true });
  const pem = await exportPKCS8(privateKey);
  return { key: await parseSigningKey(pem, "a fresh key"), pem };
}
