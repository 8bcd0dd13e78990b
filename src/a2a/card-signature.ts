// Signed agent cards (docs/reference.md, "Signed cards"): a detached JWS (RFC 7515, flattened) over the card's
// canonical payload, carried in the card's `signatures` as A2A 1.0's AgentCardSignature `{ protected, signature }`.
import canonicalize from "canonicalize";
import { FlattenedSign, type JWK } from "jose";
import type { CardSigningKey } from "./signing-key.js";

/** The fields of the 1.0 AgentCard message (a2a.proto): the only ones a signature covers. */
const AGENT_CARD_FIELDS = [
  "name",
  "description",
  "supportedInterfaces",
  "provider",
  "version",
  "documentationUrl",
  "capabilities",
  "securitySchemes",
  "securityRequirements",
  "defaultInputModes",
  "defaultOutputModes",
  "skills",
  "iconUrl",
];

/** Cards signed at most: one per Host the card was asked under (the host guard limits them) and per kind. */
const MAX_SIGNED_CARDS = 64;

export interface AgentCardSignature {
  protected: string;
  signature: string;
}

/**
 * The JWS payload of a card: its AgentCard fields with proto3 defaults left out and without `signatures`, then
 * canonical JSON (RFC 8785), as A2A 1.0 §8.4.1 says and as the A2A SDKs compute it on verifying (they read the card
 * as the proto message, then drop empty strings, lists and objects). Fields outside the 1.0 message (the 0.3
 * fields url, preferredTransport, protocolVersion) are not covered: a verifier never sees them in the payload.
 */
export function cardPayload(card: Record<string, unknown>): string {
  const fields: Record<string, unknown> = {};
  for (const name of AGENT_CARD_FIELDS) if (card[name] !== undefined) fields[name] = card[name];
  return canonicalize(withoutEmpty(withoutDefaults(fields)) ?? {}) as string;
}

/** AgentExtension.required is a plain proto3 bool: false is its default, which the proto's JSON leaves out. */
function withoutDefaults(fields: Record<string, unknown>): Record<string, unknown> {
  const capabilities = fields.capabilities as { extensions?: Array<Record<string, unknown>> } | undefined;
  if (!Array.isArray(capabilities?.extensions)) return fields;
  const extensions = capabilities.extensions.map(({ required, ...extension }) =>
    required === false ? extension : { ...extension, required },
  );
  return { ...fields, capabilities: { ...capabilities, extensions } };
}

/** What the SDKs drop before canonicalizing: "", null, [] and {} (recursively, so a list of empty objects goes too). */
function withoutEmpty(value: unknown): unknown {
  if (value === "" || value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(withoutEmpty).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  if (typeof value === "object") {
    const kept: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const cleaned = withoutEmpty(item);
      if (cleaned !== undefined) kept[key] = cleaned;
    }
    return Object.keys(kept).length > 0 ? kept : undefined;
  }
  return value;
}

/** Signs cards with one key; each distinct card is signed once, so its text (and ETag) stays the same. */
export class CardSigner {
  private readonly signed = new Map<string, AgentCardSignature>();

  constructor(readonly key: CardSigningKey) {}

  /** How many signed cards are kept. */
  get kept(): number {
    return this.signed.size;
  }

  /** The JWK Set of `/.well-known/jwks.json`: the public key only. */
  jwks(): { keys: JWK[] } {
    return { keys: [{ ...this.key.publicJwk, kid: this.key.kid, alg: this.key.alg, use: "sig" }] };
  }

  /** `card` with its signature; `jku` names where the key set is served (none on stdio, which has no URL). */
  async sign<C extends Record<string, unknown>>(
    card: C,
    jku?: string,
  ): Promise<Omit<C, "signatures"> & { signatures: AgentCardSignature[] }> {
    const { signatures: _old, ...unsigned } = card;
    const payload = cardPayload(unsigned);
    const cacheKey = `${jku ?? ""}\n${payload}`;
    let signature = this.signed.get(cacheKey);
    if (signature === undefined) {
      const jws = await new FlattenedSign(new TextEncoder().encode(payload))
        .setProtectedHeader({ alg: this.key.alg, typ: "JOSE", kid: this.key.kid, ...(jku ? { jku } : {}) })
        .sign(this.key.privateKey);
      signature = { protected: jws.protected as string, signature: jws.signature };
      if (this.signed.size >= MAX_SIGNED_CARDS) this.signed.delete(this.signed.keys().next().value as string);
    } else this.signed.delete(cacheKey);
    this.signed.set(cacheKey, signature);
    return { ...unsigned, signatures: [signature] };
  }
}

/** Where a server at `base` serves its key set. */
export const jwksUrl = (base: string) => `${base}/.well-known/jwks.json`;

/** `card` signed when there is a signer, naming the key set of the server at `base` (none on stdio). */
export function signedCard<C extends Record<string, unknown>>(signer: CardSigner | undefined, card: C, base?: string) {
  return signer ? signer.sign(card, base === undefined ? undefined : jwksUrl(base)) : card;
}
