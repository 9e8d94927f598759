// Solana, x402 exact: a USDC transfer signed by @x402/svm's client, our facilitator paying the
// fee. The client reads its blockhash and the mint from `rpcUrl` (mainnet's public RPC unless told).

import { createKeyPairSignerFromBytes, getBase58Encoder } from "@solana/kit";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import type { Payer } from "./types.js";
import { x402Payer } from "./x402.js";

export async function solanaPayer(opts: { secretKey: string; rpcUrl?: string; fetch?: typeof globalThis.fetch }): Promise<Payer> {
  // base58 text -> the 64 key bytes (kit's "encoder" turns a string into bytes).
  const signer = await createKeyPairSignerFromBytes(new Uint8Array(getBase58Encoder().encode(opts.secretKey)));
  const scheme = new ExactSvmScheme(signer, opts.rpcUrl ? { rpcUrl: opts.rpcUrl } : undefined);
  return x402Payer({
    rail: "solana",
    address: signer.address,
    setup: (client) => void client.register("solana:*", scheme),
    offers: (r) => r.network.startsWith("solana:"),
    ...(opts.fetch && { fetch: opts.fetch }),
  });
}
