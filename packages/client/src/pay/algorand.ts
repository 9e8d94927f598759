// Algorand, x402 exact: a USDC (ASA 31566704) transfer in a group whose fee our facilitator
// pays, built and signed by @x402/avm's client against `algodUrl`.

import { toClientAvmSigner } from "@x402/avm";
import { ExactAvmScheme } from "@x402/avm/exact/client";
import algosdk from "algosdk";
import { base64 } from "../base64.js";
import type { Payer } from "./types.js";
import { x402Payer } from "./x402.js";

export function algorandPayer(opts: { mnemonic: string; algodUrl: string; algodToken?: string; fetch?: typeof globalThis.fetch }): Payer {
  const account = algosdk.mnemonicToSecretKey(opts.mnemonic.trim());
  const signer = toClientAvmSigner(base64(account.sk));
  const scheme = new ExactAvmScheme(signer, { algodUrl: opts.algodUrl, algodToken: opts.algodToken ?? "" });
  return x402Payer({
    rail: "algorand",
    address: account.addr.toString(),
    setup: (client) => void client.register("algorand:*", scheme),
    offers: (r) => r.network.startsWith("algorand:"),
    ...(opts.fetch && { fetch: opts.fetch }),
  });
}
