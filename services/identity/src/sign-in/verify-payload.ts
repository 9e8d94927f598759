import { SIGN_IN_SESSION_SECONDS, SignInPayload } from "@board/proto";
import { validateSIWxMessage, verifySIWxSignature, type SIWxValidationCode } from "@x402/extensions/sign-in-with-x";
import { verifyAlgorandSignature } from "./algorand.js";
import { verifySolanaSignature } from "./solana.js";
import { signInMessage } from "./challenge.js";
import { isValidSignInAddress, messageAddress, signInChain, signInPrincipalId, type SignInChainInfo } from "./chains.js";
import type { SignInNonces } from "./nonce.js";

export type SignInResult =
  | { ok: true; address: string; chainId: string; principalId: string; expiresAt: Date }
  | { ok: false; code: "sign_in_invalid" | "sign_in_expired"; message: string };

export interface PayloadVerifier {
  nonces: SignInNonces;
  publicBaseUrl: URL;
  now: () => Date;
  /** Called once per signature actually checked (the costly step), for tests and metrics. */
  onSignatureCheck?: () => void;
}

const SESSION_MS = SIGN_IN_SESSION_SECONDS * 1000;
/** Clock difference tolerated between identity replicas (issuedAt from one, checked on another). */
const CLOCK_SKEW_MS = 5_000;

const FRESH = "Fetch a fresh challenge (a 402 from any free-tier route, or GET /api/auth/nonce) and sign it again.";
// Client-facing texts: what happened in the client's terms and what to do; no internals.
export const SIGN_IN_MESSAGES = {
  malformed: `The sign-in payload is malformed. ${FRESH}`,
  unsupportedChain: `Sign-in is not offered on this chain. Sign on one of the supportedChains of the challenge. ${FRESH}`,
  typeMismatch: `The signature type does not match the chain (eip191 for EVM chains, ed25519 for Solana and Algorand). ${FRESH}`,
  badAddress: `The address is not a valid address on this chain. ${FRESH}`,
  notBound: `This sign-in was made for another site (its domain or uri is not this service's). ${FRESH}`,
  notIssued: `The nonce was not issued by this service, or the challenge's times were changed. ${FRESH} Sign the challenge unchanged.`,
  notYetValid: `This sign-in is not valid yet (its issuedAt or notBefore is in the future). ${FRESH}`,
  expired: `The sign-in session has ended (a session lasts ${SIGN_IN_SESSION_SECONDS / 60} minutes from issuedAt). ${FRESH}`,
  badSignature: `The signature does not match the address and the message. Sign the challenge's exact message with this address's wallet. ${FRESH}`,
} as const;

const invalid = (message: string): SignInResult => ({ ok: false, code: "sign_in_invalid", message });
const expired = (): SignInResult => ({ ok: false, code: "sign_in_expired", message: SIGN_IN_MESSAGES.expired });

function fromValidationCode(code: SIWxValidationCode): SignInResult {
  switch (code) {
    case "invalid_siwx_domain_mismatch":
    case "invalid_siwx_uri_mismatch":
      return invalid(SIGN_IN_MESSAGES.notBound);
    case "invalid_siwx_issued_at_too_old":
    case "invalid_siwx_expired":
      return expired();
    case "invalid_siwx_issued_at_in_future":
    case "invalid_siwx_not_yet_valid":
      return invalid(SIGN_IN_MESSAGES.notYetValid);
    case "invalid_siwx_nonce":
      return invalid(SIGN_IN_MESSAGES.notIssued);
    case "invalid_siwx_issued_at":
    case "invalid_siwx_expiration_time":
    case "invalid_siwx_not_before":
      return invalid(SIGN_IN_MESSAGES.malformed);
  }
}

/**
 * A signed SIWX payload, checked cheapest first: shape, chain and address; binding to our
 * origin, times and our nonce's MAC; the session length and our clock; the signature last.
 */
export async function verifySignInPayload(raw: unknown, verifier: PayloadVerifier): Promise<SignInResult> {
  const parsed = SignInPayload.safeParse(raw);
  if (!parsed.success) return invalid(SIGN_IN_MESSAGES.malformed);
  const payload = parsed.data;
  const chain = signInChain(payload.chainId);
  if (!chain) return invalid(SIGN_IN_MESSAGES.unsupportedChain);
  if (payload.type !== chain.type) return invalid(SIGN_IN_MESSAGES.typeMismatch);
  if (!isValidSignInAddress(chain.family, payload.address)) return invalid(SIGN_IN_MESSAGES.badAddress);

  const { expirationTime } = payload;
  // The library checks domain, uri origin and times against the process clock; the nonce
  // check recomputes our MAC from the payload's own times and domain.
  const validation = await validateSIWxMessage(payload, verifier.publicBaseUrl, {
    maxAge: SESSION_MS + CLOCK_SKEW_MS,
    checkNonce: (nonce) =>
      expirationTime !== undefined && verifier.nonces.verify(nonce, { issuedAt: payload.issuedAt, expirationTime, domain: payload.domain }),
  });
  if (!validation.isValid) return fromValidationCode(validation.invalidReason);
  if (expirationTime === undefined) return invalid(SIGN_IN_MESSAGES.notIssued);

  // Our MAC already pins these strings; this keeps the session length a rule of its own.
  const issuedAtMs = Date.parse(payload.issuedAt);
  const expiresAtMs = Date.parse(expirationTime);
  if (expiresAtMs - issuedAtMs !== SESSION_MS) return invalid(SIGN_IN_MESSAGES.notIssued);
  const nowMs = verifier.now().getTime();
  if (nowMs >= expiresAtMs) return expired();
  if (issuedAtMs > nowMs + CLOCK_SKEW_MS) return invalid(SIGN_IN_MESSAGES.notYetValid);
  if (payload.notBefore !== undefined && Date.parse(payload.notBefore) > nowMs) return invalid(SIGN_IN_MESSAGES.notYetValid);

  verifier.onSignatureCheck?.();
  if (!(await signatureValid(chain, payload))) return invalid(SIGN_IN_MESSAGES.badSignature);
  const address = messageAddress(chain.family, payload.address);
  return { ok: true, address, chainId: chain.chainId, principalId: signInPrincipalId(chain, address), expiresAt: new Date(expiresAtMs) };
}

async function signatureValid(chain: SignInChainInfo, payload: SignInPayload): Promise<boolean> {
  try {
    if (chain.family === "algorand") {
      return verifyAlgorandSignature(signInMessage("algorand", payload, payload.address), payload.address, payload.signature);
    }
    if (chain.family === "solana") return verifySolanaSignature(signInMessage("solana", payload, payload.address), payload.address, payload.signature);
    // EVM: EOA personal_sign via viem's ECDSA recovery, no RPC.
    return (await verifySIWxSignature(payload)).isValid;
  } catch {
    // The SIWE message builder throws on fields it cannot place in a message: not a valid signature.
    return false;
  }
}
