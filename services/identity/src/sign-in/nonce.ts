import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

const RANDOM_BYTES = 8;
const MAC_BYTES = 16;
const NONCE_PATTERN = new RegExp(`^[0-9a-f]{${2 * (RANDOM_BYTES + MAC_BYTES)}}$`);

/** What a nonce is bound to: the challenge's own times and domain. */
export interface NonceBinding {
  issuedAt: string;
  expirationTime: string;
  domain: string;
}

/**
 * Nonces we can check without storing them: random | MAC(random, times, domain). A nonce we
 * never issued, or one moved onto other times or another domain, does not verify. Lowercase
 * hex only, so it is alphanumeric (EIP-4361 wants at least 8 such characters).
 */
export class SignInNonces {
  constructor(private readonly key: Uint8Array) {
    if (key.length !== 32) throw new Error(`the sign-in nonce key must be 32 bytes, not ${key.length}`);
  }

  issue(binding: NonceBinding): string {
    const random = randomBytes(RANDOM_BYTES).toString("hex");
    return random + this.mac(random, binding).toString("hex");
  }

  /** Constant-time check that we issued this nonce for exactly these times and domain. */
  verify(nonce: string, binding: NonceBinding): boolean {
    if (!NONCE_PATTERN.test(nonce)) return false;
    const random = nonce.slice(0, 2 * RANDOM_BYTES);
    const given = Buffer.from(nonce.slice(2 * RANDOM_BYTES), "hex");
    return timingSafeEqual(given, this.mac(random, binding));
  }

  private mac(random: string, { issuedAt, expirationTime, domain }: NonceBinding): Buffer {
    // The issued fields hold no "|" (hex, ISO times, a host), so no other split of a payload
    // into fields can reproduce an issued MAC input.
    return createHmac("sha256", this.key).update(`${random}|${issuedAt}|${expirationTime}|${domain}`).digest().subarray(0, MAC_BYTES);
  }
}
