import { baseEnv, OperatorCliEnv, parseEnv } from "@board/service-kit";
import { parseEther } from "viem";
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
 * The bytes a base64 or base64url text (RFC 4648 4 and 5) decodes to, or null when it is
 * neither: one alphabet throughout, padding optional but only at the end and only to a
 * multiple of 4 characters.
 */
function base64Bytes(text: string): number | null {
  const m = /^(?:([A-Za-z0-9+/]*)|([A-Za-z0-9_-]*))(={0,2})$/.exec(text);
  if (!m) return null;
  const data = m[1] ?? m[2] ?? "";
  const padding = m[3] ?? "";
  if (padding.length > 0 && text.length % 4 !== 0) return null;
  // A last group of one character holds 6 bits: no byte string encodes to it.
  if (data.length % 4 === 1) return null;
  return Math.floor((data.length * 6) / 8);
}
const MPP_SECRET_MIN_BYTES = 32;
/**
 * mppx keys its HMAC with the text itself (32+ UTF-8 bytes); we ask for what makes it strong:
 * base64 or base64url of 32+ random bytes (`openssl rand -base64 32`, 43 characters or more).
 */
const mppSecret = z
  .string()
  .refine((s) => (base64Bytes(s) ?? 0) >= MPP_SECRET_MIN_BYTES, `must be base64 or base64url text that decodes to at least ${MPP_SECRET_MIN_BYTES} bytes`);
/** An amount of ETH written in ether (`0.005`), as wei: up to 18 decimals. */
const ether = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,18})?$/, "must be an amount of ETH in ether, such as 0.005")
  .transform((s) => parseEther(s));
/** Milliseconds, as a whole number. */
const millis = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

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
    BASE_RPC_URL: httpUrl.optional().describe("Base JSON-RPC endpoint the facilitator verifies and settles on; required with PAY_TO_BASE."),
    BASE_FACILITATOR_KEY: evmKey.optional().describe("0x 32-byte key of the account that pays gas for settlements; required with PAY_TO_BASE; never logged."),
    BASE_USDC_ADDRESS: evmAddress.default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913").describe("USDC on Base (tests point it at the local chain's token, same address)."),
    /**
     * Below this balance (in ETH) the facilitator is warned about (a log line, the rails' status,
     * the payments_facilitator_balance_wei gauge); Base's rails go down only when it cannot pay
     * for one settlement transaction. 0.005 ETH pays for about a hundred full batches at 0.01 gwei.
     */
    BASE_FACILITATOR_LOW_BALANCE_ETH: ether.default(parseEther("0.005")),
    /** Who recovers EIP-3009 signatures: libsecp256k1 (native) or viem's pure JS (for comparison). */
    EVM_VERIFIER: z.enum(["native", "viem"]).default("native"),
    /** Solana mainnet: exact USDC, our facilitator pays the fee. */
    PAY_TO_SOLANA: solanaAddress.optional(),
    SOLANA_RPC_URL: httpUrl.optional().describe("Solana JSON-RPC; required with PAY_TO_SOLANA."),
    SOLANA_FACILITATOR_KEY: solanaSecret.optional().describe("Base58 64-byte key of the fee payer; required with PAY_TO_SOLANA."),
    /** Algorand mainnet: USDC (ASA 31566704), fees sponsored by our facilitator account. */
    PAY_TO_ALGORAND: algorandAddress.optional(),
    ALGOD_URL: httpUrl.optional().describe("algod endpoint; required with PAY_TO_ALGORAND."),
    ALGOD_TOKEN: z.string().max(256).default("").describe("algod API token, if the node asks for one."),
    ALGORAND_FACILITATOR_MNEMONIC: mnemonic25.optional().describe("The fee-sponsoring account's 25-word mnemonic; required with PAY_TO_ALGORAND."),
    /** Circle's Gateway API (batched rail); payTo is PAY_TO_BASE. */
    CIRCLE_GATEWAY_URL: httpUrl.optional(),
    /** HMAC key binding MPP challenges to this service: base64 or base64url text of 32+ bytes. */
    MPP_SECRET_KEY: mppSecret.optional(),
    /** `development`: the launcher's development chains (no real money), said in status, readiness and on the landing page. */
    PAYMENTS_MODE: z.enum(["development", "production"]).default("production"),
    /**
     * A configured rail whose backend (RPC, algod, Circle's Gateway) does not answer is not
     * offered and is asked again after RAIL_RETRY_INITIAL_MS, doubling to RAIL_RETRY_MAX_MS,
     * each wait shortened by up to RAIL_RETRY_JITTER of itself (replicas do not retry in step).
     */
    RAIL_RETRY_INITIAL_MS: millis(1, 600_000).default(500),
    RAIL_RETRY_MAX_MS: millis(1, 3_600_000).default(30_000),
    RAIL_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
    /** How long one ask of a rail's backend may take before it counts as no answer. */
    RAIL_PROBE_TIMEOUT_MS: millis(100, 60_000).default(5_000),
    /** How long a client has to pay after a 402 (x402 maxTimeoutSeconds). */
    PAYMENT_TIMEOUT_SECONDS: z.coerce.number().int().min(10).max(3600).default(120),
    /**
     * Base settlements (x402 exact and MPP) go on chain together: one Multicall3 aggregate3
     * transaction per batch, closed at SETTLEMENT_BATCH_MAX payments or SETTLEMENT_BATCH_WINDOW_MS
     * after its first, whichever comes first, or sooner once it holds the demand the last window
     * showed and nothing verified is still on its way (defaults measured: docs/decisions.md).
     */
    SETTLEMENT_BATCH_MAX: z.coerce.number().int().min(1).max(256).default(32),
    SETTLEMENT_BATCH_WINDOW_MS: millis(0, 10_000).default(25),
    /**
     * A sent batch whose receipt has not come after this is unknown: its claims stay open for
     * reconciliation. Below the gateway's settle timeout (10 x its BUS_TIMEOUT_MS, 30 s), so a
     * read is answered by payments, not cut off by the gateway while its batch may still land.
     */
    SETTLEMENT_RECEIPT_TIMEOUT_MS: millis(100, 600_000).default(20_000),
    /** How often a sent batch's receipt is asked for. */
    SETTLEMENT_RECEIPT_POLL_MS: millis(5, 10_000).default(100),
    /**
     * A Base read answered before its block is final (its receipt signed final, its payer's
     * reservation released) once its transaction is this many blocks deep (its own included)
     * and the receipt read again still carries its transfer: a block reorganized away after
     * its receipt was read is caught, and the settlement goes to reconciliation (sent again, or
     * a loss against the payer once the authorization lapsed). 1: final at the receipt.
     */
    SETTLEMENT_FINAL_CONFIRMATIONS: z.coerce.number().int().min(1).max(64).default(2),
    /**
     * Base reads priced at most ANSWER_BEFORE_BLOCK_MAX_PRICE (USDC base units; 0: none) are
     * answered once their transfer is simulated against the latest state and broadcast, before
     * its block, while what their payer has been served and not yet settled stays within
     * UNSETTLED_PER_PAYER_CAP; past it, or above the price, a read waits for its block. The
     * defaults answer every read but the full board (0.25 USDC) early, and let a payer hold at
     * most 0.05 USDC unsettled (ten 0.005 reads), the most it can take unpaid (docs/decisions.md).
     */
    ANSWER_BEFORE_BLOCK_MAX_PRICE: z.coerce.number().int().min(0).max(1_000_000_000).default(50_000),
    UNSETTLED_PER_PAYER_CAP: z.coerce.number().int().min(0).max(1_000_000_000).default(50_000),
    /**
     * A retry of a settled payment (the same signed payment, or the same payment-identifier id
     * from the same payer) is served the read it bought again, within this long after its
     * settlement and at most REDELIVERY_MAX times; then it is refused with its own reason.
     */
    REDELIVERY_WINDOW_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
    REDELIVERY_MAX: z.coerce.number().int().min(0).max(100).default(3),
    /**
     * Root secret of the keys that sign offers and receipts (their private halves are stored
     * encrypted under a key derived from it). Required when any rail is configured: nothing
     * is sold without a signed receipt.
     */
    RECEIPT_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    /** How long a receipt signing key signs before its successor takes over. */
    RECEIPT_KEY_ROTATE_AFTER_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    /** A new receipt key is in the DID document this long before it signs (longer than a verifier's cache of it). */
    RECEIPT_KEY_PUBLISH_LEAD_SECONDS: z.coerce.number().int().min(1).max(86_400).default(900),
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
    const sells = [env.PAY_TO_BASE, env.PAY_TO_SOLANA, env.PAY_TO_ALGORAND, env.CIRCLE_GATEWAY_URL, env.MPP_SECRET_KEY].some((v) => v !== undefined);
    if (sells && env.RECEIPT_SECRET === undefined)
      ctx.addIssue({ code: "custom", path: ["RECEIPT_SECRET"], message: "is required when a rail is configured (it protects the keys that sign receipts)" });
    if (env.RECEIPT_KEY_ROTATE_AFTER_DAYS * 86_400 <= env.RECEIPT_KEY_PUBLISH_LEAD_SECONDS)
      ctx.addIssue({ code: "custom", path: ["RECEIPT_KEY_PUBLISH_LEAD_SECONDS"], message: "must be shorter than RECEIPT_KEY_ROTATE_AFTER_DAYS" });
    if (env.RAIL_RETRY_MAX_MS < env.RAIL_RETRY_INITIAL_MS)
      ctx.addIssue({ code: "custom", path: ["RAIL_RETRY_MAX_MS"], message: "must be at least RAIL_RETRY_INITIAL_MS" });
  });
export type PaymentsEnv = z.infer<typeof PaymentsEnv>;

export const loadEnv = (): PaymentsEnv => parseEnv(PaymentsEnv, process.env, "payments");

/**
 * The arrears command-line tool: it talks only to payments, over the bus, as the operator (the
 * one credential the bus lets list or clear the payers in arrears): its nkey seed is given as
 * NATS_NKEY_SEED, or as a file (NATS_NKEY_SEED_FILE, such as the launcher's
 * .data/nats/auth/operator.nk or a mounted Secret), so it stays out of shell history.
 */
export const ArrearsCliEnv = OperatorCliEnv;
export type ArrearsCliEnv = z.infer<typeof ArrearsCliEnv>;

export const loadArrearsCliEnv = (): ArrearsCliEnv => parseEnv(ArrearsCliEnv, process.env, "arrears");
