// Signed agent cards (docs/reference.md, "Signed cards"): detached JWS (RFC 7515, flattened) over the card's
// canonical payloads (card-payload.ts), carried in the card's `signatures` as A2A 1.0's AgentCardSignature
// `{ protected, signature }`: first over the payload of A2A 1.0 §8.4.1, then over the one the A2A SDKs verify.
import { FlattenedSign, type JWK } from "jose";
import { cardPayload, sdkCardPayload } from "./card-payload.js";
import type { CardSigningKey } from "./signing-key.js";

/** Cards signed at most: one per Host the card was asked under (the host guard limits them) and per kind. */
const MAX_SIGNED_CARDS = 64;

export interface AgentCardSignature {
  protected: string;
  signature: string;
}

/** Signs cards with one key; each distinct card is signed once, so its text (and ETag) stays the same. */
export class CardSigner {
  private readonly signed = new Map<string, AgentCardSignature[]>();

  constructor(readonly key: CardSigningKey) {}

  /** How many signed cards are kept. */
  get kept(): number {
    return this.signed.size;
  }

  /** The JWK Set of `/.well-known/jwks.json`: the public key only. */
  jwks(): { keys: JWK[] } {
    return { keys: [{ ...this.key.publicJwk, kid: this.key.kid, alg: this.key.alg, use: "sig" }] };
  }

  /** `card` with its signatures; `jku` names where the key set is served (none on stdio, which has no URL). */
  async sign<C extends Record<string, unknown>>(
    card: C,
    jku?: string,
  ): Promise<Omit<C, "signatures"> & { signatures: AgentCardSignature[] }> {
    const { signatures: _old, ...unsigned } = card;
    const payload = cardPayload(unsigned);
    // The SDKs' payload is made from the same fields, so the first payload says which card this is.
    const cacheKey = `${jku ?? ""}\n${payload}`;
    let signatures = this.signed.get(cacheKey);
    if (signatures === undefined) {
      const payloads = [...new Set([payload, sdkCardPayload(unsigned)])];
      signatures = await Promise.all(payloads.map((text) => this.signature(text, jku)));
      if (this.signed.size >= MAX_SIGNED_CARDS) this.signed.delete(this.signed.keys().next().value as string);
    } else this.signed.delete(cacheKey);
    this.signed.set(cacheKey, signatures);
    return { ...unsigned, signatures };
  }

  private async signature(payload: string, jku: string | undefined): Promise<AgentCardSignature> {
    const jws = await new FlattenedSign(new TextEncoder().encode(payload))
      .setProtectedHeader({ alg: this.key.alg, typ: "JOSE", kid: this.key.kid, ...(jku ? { jku } : {}) })
      .sign(this.key.privateKey);
    return { protected: jws.protected as string, signature: jws.signature };
  }
}

/** Where a server at `base` serves its key set. */
export const jwksUrl = (base: string) => `${base}/.well-known/jwks.json`;

/** `card` signed when there is a signer, naming the key set of the server at `base` (none on stdio). */
export function signedCard<C extends Record<string, unknown>>(signer: CardSigner | undefined, card: C, base?: string) {
  return signer ? signer.sign(card, base === undefined ? undefined : jwksUrl(base)) : card;
}
