import { generateKeyPairSync, sign } from "node:crypto";
import type { SignInChallengeReply, SignInPayload } from "@board/proto";
import { encodeBase58, formatSIWEMessage, type CompleteSIWxInfo } from "@x402/extensions/sign-in-with-x";
import type { PrivateKeyAccount } from "viem/accounts";
import { SignIn } from "../../src/sign-in/index.js";

export const ORIGIN = new URL("https://board.example");

/** A SignIn on the real clock, moved by `clock.offsetMs` (the library also reads the process clock). */
export function newSignIn(publicBaseUrl: URL = ORIGIN, nonceKey: Uint8Array = new Uint8Array(32).fill(7)) {
  const clock = { offsetMs: 0 };
  const signIn = new SignIn({ nonceKey, publicBaseUrl, now: () => new Date(Date.now() + clock.offsetMs) });
  return { signIn, clock };
}

export function chainOf(reply: SignInChallengeReply, chainId: string): CompleteSIWxInfo {
  const chain = reply.supportedChains.find((c) => c.chainId === chainId);
  if (!chain) throw new Error(`challenge does not offer ${chainId}`);
  return { ...reply.info, chainId: chain.chainId, type: chain.type };
}

/**
 * An EVM client that signs whatever info it is given (createSIWxPayload refuses a challenge
 * not bound to the URL it fetched, so tampering clients are built by hand).
 */
export async function signEvm(info: CompleteSIWxInfo, account: PrivateKeyAccount, address: string = account.address): Promise<SignInPayload> {
  const signature = await account.signMessage({ message: formatSIWEMessage(info, address) });
  return { ...info, address, signature };
}

/** The wallet-adapter shape (Phantom, Solflare) @x402/extensions signs with; its own type is not exported. */
export interface WalletAdapterSigner {
  publicKey: string;
  signMessage: (message: Uint8Array) => Promise<Uint8Array>;
}

/** A wallet-adapter style Solana signer over a node:crypto Ed25519 key. */
export function nodeSolanaWallet(): WalletAdapterSigner {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  return {
    publicKey: encodeBase58(new Uint8Array(raw)),
    signMessage: async (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}
