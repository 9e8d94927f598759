// The development wallets `npm start` writes to .data/dev-wallets.json when it runs its own
// development chains (no rail configured): one funded buyer per rail and where each rail's chain
// answers. The launcher writes this shape and the client reads it, so the two cannot drift.
// Nothing here is real money: the chains are local and the Algorand and Circle ones are stand-ins.
// The shape only (browser-safe); node/dev-wallets.ts reads the file.

import { z } from "zod";

const EvmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);
const EvmKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/);
const Base58 = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]+$/);
const HttpUrl = z.url({ protocol: /^https?$/ });

export const DevEvmBuyer = z.object({ address: EvmAddress, private_key: EvmKey });
export type DevEvmBuyer = z.infer<typeof DevEvmBuyer>;

export const DevWallets = z.object({
  /** Always true: a reminder in the file itself that no real money is involved. */
  development: z.literal(true),
  note: z.string(),
  /** The gateway these wallets buy from. */
  gateway: HttpUrl,
  written_at: z.iso.datetime({ offset: true }),
  /** Base (eip155:8453) on the local EVM chain: x402 exact (EIP-3009 USDC) and MPP's usdc charge. */
  base: z.object({
    network: z.literal("eip155:8453"),
    rpc_url: HttpUrl,
    usdc: EvmAddress,
    pay_to: EvmAddress,
    buyer: DevEvmBuyer,
  }),
  /** Solana on the local chain (mainnet's network id and USDC mint). */
  solana: z.object({
    network: z.string().startsWith("solana:"),
    rpc_url: HttpUrl,
    pay_to: Base58,
    buyer: z.object({ address: Base58, secret_key: Base58 }),
  }),
  /** Algorand through the algod STAND-IN (USDC ASA 31566704). */
  algorand: z.object({
    network: z.string().startsWith("algorand:"),
    algod_url: HttpUrl,
    /** The stand-in's X-Algo-API-Token (generated per start). */
    algod_token: z.string(),
    pay_to: z.string().regex(/^[A-Z2-7]{58}$/),
    buyer: z.object({ address: z.string().regex(/^[A-Z2-7]{58}$/), mnemonic: z.string() }),
  }),
  /** Circle's batched rail through the Gateway STAND-IN: the buyer holds a Gateway balance. */
  batched: z.object({
    network: z.literal("eip155:8453"),
    gateway_url: HttpUrl,
    buyer: DevEvmBuyer,
  }),
  /** MPP (method usdc, intent charge) settles on the local Base chain; the buyer is the Base buyer's key unless told. */
  mpp: z.object({ buyer: DevEvmBuyer }),
});
export type DevWallets = z.infer<typeof DevWallets>;

/** Checks a dev-wallets document (the file's JSON, or the same fetched by a page); throws naming `source`. */
export function parseDevWallets(json: unknown, source: string): DevWallets {
  const parsed = DevWallets.safeParse(json);
  if (!parsed.success) throw new Error(`${source} is not a development wallets file: ${parsed.error.issues[0]?.message ?? "bad shape"}`);
  return parsed.data;
}
