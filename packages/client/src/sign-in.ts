// Wallet sign-in (SPEC.md 5 rule 3): the wallet signs the board's CAIP-122 challenge, proving it
// controls its address without moving funds, and the signed payload is a session on the free
// tier (25 reads a day per address) until its expirationTime, 10 minutes after issue. EVM and
// Solana wallets sign with @x402/extensions' sign-in-with-x client; Algorand, which that package
// does not cover, signs the message the board gives with algosdk (ed25519 over "MX" + message).

import { SignInChallengeReply, SignInPayload, SignInVerifyReply } from "@board/proto";
import type { KeyPairSigner } from "@solana/kit";
import type { SIWxSigner } from "@x402/extensions/sign-in-with-x";
import type { LocalAccount } from "viem";
import type { z } from "zod";
import { base64, base64Text } from "./base64.js";
import { fail, ok, type Result } from "./errors.js";
import type { Http } from "./http.js";

export type WalletSigner =
  /** A viem account (personal_sign, EIP-4361 message). */
  | { chain: "evm"; account: LocalAccount }
  /** An @solana/kit key pair signer (signMessage). */
  | { chain: "solana"; signer: KeyPairSigner }
  /** An algosdk account: its address and 64-byte secret key. */
  | { chain: "algorand"; address: string; secretKey: Uint8Array };

/** The CAIP-2 chain each wallet family signs in on. */
export const SIGN_IN_CHAINS = {
  evm: "eip155:8453",
  solana: "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp",
  algorand: "algorand:wGHE2Pwdvd7S12BL5FaOP20EGYesN73k",
} as const;

export interface SignInSession {
  /** The SIGN-IN-WITH-X header value (base64 of the signed payload). */
  header: string;
  payload: SignInPayload;
  address: string;
  expires_at: Date;
}

const addressOf = (s: WalletSigner): string => (s.chain === "evm" ? s.account.address : s.chain === "solana" ? s.signer.address : s.address);

/** Signs a fresh challenge of the board at `http`: the session to send on free-tier reads. */
export async function signIn(http: Http, wallet: WalletSigner): Promise<Result<SignInSession>> {
  const address = addressOf(wallet);
  const chainId = SIGN_IN_CHAINS[wallet.chain];
  const challenge = await http.json(http.url("/api/auth/nonce", { address, chain: chainId }), SignInChallengeReply);
  if (!challenge.ok) return challenge;
  const { info, message } = challenge.value;
  let payload: SignInPayload;
  try {
    if (wallet.chain === "algorand") {
      if (!message) return fail("sign_in_failed", "the board's challenge carries no message to sign");
      const algosdk = (await import("algosdk")).default;
      const signature = base64(algosdk.signBytes(new TextEncoder().encode(message), wallet.secretKey));
      payload = { ...info, address, chainId, type: "ed25519", signature };
    } else {
      const siwx = await import("@x402/extensions/sign-in-with-x");
      const signer = wallet.chain === "evm" ? wallet.account : (wallet.signer as unknown as SIWxSigner);
      const type = wallet.chain === "evm" ? "eip191" : "ed25519";
      // Checks that the challenge is bound to the origin we asked (a challenge for elsewhere is not signed).
      payload = SignInPayload.parse(await siwx.createSIWxPayload({ ...info, chainId, type }, signer, http.url("/api/auth/nonce")));
    }
  } catch (err) {
    return fail("sign_in_failed", `the wallet could not sign in: ${err instanceof Error ? err.message : String(err)}`);
  }
  const header = base64Text(JSON.stringify(payload));
  return ok({ header, payload, address, expires_at: new Date(payload.expirationTime ?? info.expirationTime) });
}

/** The wallet key POST /api/auth/verify answers with: identity's accepted reply, without its `ok`. */
export const WalletKeyReply = SignInVerifyReply.options[0].omit({ ok: true });
export type WalletKeyReply = z.infer<typeof WalletKeyReply>;

/** POST /api/auth/verify: a signed session for a wallet key (X-Board-Key), which lasts beyond the session. */
export function walletKey(http: Http, session: SignInSession): Promise<Result<WalletKeyReply>> {
  return http.json(http.url("/api/auth/verify"), WalletKeyReply, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(session.payload),
  });
}
