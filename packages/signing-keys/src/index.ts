/**
 * Signing keys a service keeps in its own Postgres schema: ES256 keys generated here, their
 * private halves encrypted at rest, and the rotation schedule (publish ahead, sign, retire,
 * stay published while what they signed must verify). Identity signs access tokens with
 * them; payments signs offers and receipts.
 */
export { assertKeySize, decryptPrivateKey, encryptPrivateKey } from "./key-encryption.js";
export { generateSigningKey, importPrivateKey, importPrivateKeyObject, importPublicKey, signEs256, type JoseKey, type NewSigningKey } from "./es256-key.js";
export { pendingSuccessor, publishedAt, removableAt, rotationState, signingKeyAt, successorDue, type RotationPolicy, type ScheduledKey } from "./key-schedule.js";
