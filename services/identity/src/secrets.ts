import { hkdfSync } from "node:crypto";

/** The keys identity derives from IDENTITY_SECRET, each for one purpose only. */
export interface IdentitySecrets {
  /** HMAC-SHA256 key for normalized email addresses: the only form an email is stored in. */
  readonly emailKey: Uint8Array;
  /** Binds sign-in nonces to this service (every replica derives the same key). */
  readonly nonceKey: Uint8Array;
  /** Encrypts OAuth signing keys at rest. */
  readonly keyEncryptionKey: Uint8Array;
  /** MACs the authorization request a consent form approves. */
  readonly consentKey: Uint8Array;
}

/** Fixed salt: the secret is already high-entropy; the salt only separates this scheme from any other use of it. */
const SALT = "board.identity.v1";
/** One distinct info label per key (RFC 5869 3.2): learning one key reveals nothing about the others. */
export const SECRET_LABELS = {
  emailKey: "board.identity.email-hmac",
  nonceKey: "board.identity.sign-in-nonce",
  keyEncryptionKey: "board.identity.signing-key-encryption",
  consentKey: "board.identity.consent-request",
} as const;

const derive = (secret: string, info: string) => new Uint8Array(hkdfSync("sha256", secret, SALT, info, 32));

/** HKDF-SHA256 of IDENTITY_SECRET into independent 32-byte keys. */
export function deriveSecrets(identitySecret: string): IdentitySecrets {
  return {
    emailKey: derive(identitySecret, SECRET_LABELS.emailKey),
    nonceKey: derive(identitySecret, SECRET_LABELS.nonceKey),
    keyEncryptionKey: derive(identitySecret, SECRET_LABELS.keyEncryptionKey),
    consentKey: derive(identitySecret, SECRET_LABELS.consentKey),
  };
}
