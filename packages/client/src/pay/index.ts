// One wallet per rail, described as plain data, and the payer made from it. Each rail's SDK is
// loaded only when a payer of that rail is made (mppx alone takes over a second to load).

import type { Hex } from "viem";
import type { DevWallets } from "../dev-wallets.js";
import type { Payer, Rail } from "./types.js";

export type RailConfig =
  /** x402 exact on Base. `rpcUrl` and `usdc` are needed only to read the balance. */
  | { rail: "base"; privateKey: Hex; rpcUrl?: string; usdc?: string }
  /** x402 exact on Solana: `rpcUrl` is where the client reads blockhash and mint (mainnet's public RPC unless told). */
  | { rail: "solana"; secretKey: string; rpcUrl?: string }
  /** x402 exact on Algorand: the 25-word mnemonic and the algod the client builds its group against. */
  | { rail: "algorand"; mnemonic: string; algodUrl: string; algodToken?: string }
  /** Circle's batched rail: the key of a wallet holding a Circle Gateway balance. `gatewayUrl` only for the balance. */
  | { rail: "batched"; privateKey: Hex; gatewayUrl?: string; usdc?: string }
  /** MPP usdc charge, settled on Base. `rpcUrl` and `usdc` are needed only to read the balance. */
  | { rail: "mpp"; privateKey: Hex; rpcUrl?: string; usdc?: string };

export async function createPayer(config: RailConfig, opts: { fetch?: typeof globalThis.fetch } = {}): Promise<Payer> {
  const f = opts.fetch ? { fetch: opts.fetch } : {};
  switch (config.rail) {
    case "base":
      return (await import("./base.js")).basePayer({ privateKey: config.privateKey, ...f });
    case "solana":
      return (await import("./solana.js")).solanaPayer({ secretKey: config.secretKey, ...(config.rpcUrl && { rpcUrl: config.rpcUrl }), ...f });
    case "algorand":
      return (await import("./algorand.js")).algorandPayer({ mnemonic: config.mnemonic, algodUrl: config.algodUrl, algodToken: config.algodToken ?? "", ...f });
    case "batched":
      return (await import("./batched.js")).batchedPayer({ privateKey: config.privateKey, ...(config.usdc && { usdc: config.usdc }), ...f });
    case "mpp":
      return (await import("./mpp.js")).mppPayer({ privateKey: config.privateKey, ...f });
  }
}

/** The development wallet of `rail` that `npm start` funded (.data/dev-wallets.json), as a RailConfig. */
export function devWalletConfig(wallets: DevWallets, rail: Rail): RailConfig {
  switch (rail) {
    case "base":
      return { rail, privateKey: wallets.base.buyer.private_key as Hex, rpcUrl: wallets.base.rpc_url, usdc: wallets.base.usdc };
    case "solana":
      return { rail, secretKey: wallets.solana.buyer.secret_key, rpcUrl: wallets.solana.rpc_url };
    case "algorand":
      return { rail, mnemonic: wallets.algorand.buyer.mnemonic, algodUrl: wallets.algorand.algod_url, algodToken: wallets.algorand.algod_token };
    case "batched":
      return { rail, privateKey: wallets.batched.buyer.private_key as Hex, gatewayUrl: wallets.batched.gateway_url, usdc: wallets.base.usdc };
    case "mpp":
      return { rail, privateKey: wallets.mpp.buyer.private_key as Hex, rpcUrl: wallets.base.rpc_url, usdc: wallets.base.usdc };
  }
}
