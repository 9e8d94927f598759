import { baseEnv, parseEnv } from "@board/service-kit";
import { z } from "zod";

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");
const evmKey = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "must be a 0x-prefixed 32-byte hex private key");
const base58 = z.string().regex(/^[1-9A-HJ-NP-Za-km-z]+$/, "must be base58");
const solanaAddress = base58.min(32).max(44);
/** A 64-byte Solana secret key in base58 (the form `solana-keygen` and wallets export). */
const solanaSecret = base58.min(80).max(90);
const algorandAddress = z.string().regex(/^[A-Z2-7]{58}$/, "must be a 58-character Algorand address");
const mnemonic25 = z
  .string()
  .trim()
  .refine((s) => s.split(/\s+/).length === 25, "must be a 25-word Algorand mnemonic");
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });

/**
 * A rail is offered only when its payTo is configured; a configured rail must be complete,
 * and anything malformed stops the service at start (the message names the variable, never
 * its value).
 */
export const PaymentsEnv = baseEnv(9105)
  .extend({
    /** Where clients reach the gateway: the origin of resource URLs and of sign-in messages. */
    PUBLIC_BASE_URL: httpUrl.default("http://localhost:8080"),
    /** Base (eip155:8453): exact EIP-3009 USDC, the MPP usdc charge and Circle's batched rail settle here. */
    PAY_TO_BASE: evmAddress.optional(),
    BASE_RPC_URL: httpUrl.optional(),
    BASE_FACILITATOR_KEY: evmKey.optional(),
    BASE_USDC_ADDRESS: evmAddress.default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
    /** Who recovers EIP-3009 signatures: libsecp256k1 (native) or viem's pure JS (for comparison). */
    EVM_VERIFIER: z.enum(["native", "viem"]).default("native"),
    /** Solana mainnet: exact USDC, our facilitator pays the fee. */
    PAY_TO_SOLANA: solanaAddress.optional(),
    SOLANA_RPC_URL: httpUrl.optional(),
    SOLANA_FACILITATOR_KEY: solanaSecret.optional(),
    /** Algorand mainnet: USDC (ASA 31566704), fees sponsored by our facilitator account. */
    PAY_TO_ALGORAND: algorandAddress.optional(),
    ALGOD_URL: httpUrl.optional(),
    ALGOD_TOKEN: z.string().max(256).default(""),
    ALGORAND_FACILITATOR_MNEMONIC: mnemonic25.optional(),
    /** Circle's Gateway API (batched rail); payTo is PAY_TO_BASE. */
    CIRCLE_GATEWAY_URL: httpUrl.optional(),
    /** HMAC key binding MPP challenges to this service (32+ bytes, hex or base64). */
    MPP_SECRET_KEY: z.string().min(43, "must be at least 32 bytes of key material").optional(),
    /** How long a client has to pay after a 402 (x402 maxTimeoutSeconds). */
    PAYMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(120),
    /** Claims still open this long after claiming are reconciled against the chain. */
    RECONCILE_AFTER_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  })
  .superRefine((env, ctx) => {
    const need = (when: unknown, names: (keyof typeof env)[], why: string) => {
      if (when === undefined) return;
      for (const name of names)
        if (env[name] === undefined) ctx.addIssue({ code: "custom", path: [name], message: `is required ${why}` });
    };
    need(env.PAY_TO_BASE, ["BASE_RPC_URL", "BASE_FACILITATOR_KEY"], "when PAY_TO_BASE is set");
    need(env.PAY_TO_SOLANA, ["SOLANA_RPC_URL", "SOLANA_FACILITATOR_KEY"], "when PAY_TO_SOLANA is set");
    need(env.PAY_TO_ALGORAND, ["ALGOD_URL", "ALGORAND_FACILITATOR_MNEMONIC"], "when PAY_TO_ALGORAND is set");
    need(env.CIRCLE_GATEWAY_URL, ["PAY_TO_BASE"], "when CIRCLE_GATEWAY_URL is set (the batched rail pays PAY_TO_BASE)");
    need(env.MPP_SECRET_KEY, ["PAY_TO_BASE"], "when MPP_SECRET_KEY is set (MPP settles on Base)");
  });
export type PaymentsEnv = z.infer<typeof PaymentsEnv>;

export const loadEnv = (): PaymentsEnv => parseEnv(PaymentsEnv, process.env, "payments");
