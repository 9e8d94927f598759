import { createHash, createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";
import type { Rail } from "@board/proto";
import {
  createSolanaRpc,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  type Address,
  type Blockhash,
  type Signature,
} from "@solana/kit";
import type { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient, ResourceConfig } from "@x402/core/server";
import type { PaymentRequirements, VerifyResponse } from "@x402/core/types";
import { SOLANA_MAINNET_CAIP2, TOKEN_2022_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS, toFacilitatorSvmSigner, USDC_MAINNET_ADDRESS } from "@x402/svm";
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator";
import { ExactSvmScheme as ExactSvmServer } from "@x402/svm/exact/server";
import type { PaymentsEnv } from "../env.js";
import { RailCheckFailed } from "./backend-failure.js";
import type { AnyPaymentPayload } from "./payload.js";
import type { ChainOutcome, X402Rail } from "./rail.js";

export const SOLANA_NETWORK = SOLANA_MAINNET_CAIP2;
/** Circle's USDC on Solana mainnet (SPL Token, 6 decimals). */
export const SOLANA_USDC_MINT = USDC_MAINNET_ADDRESS;

const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS];
/**
 * What the fee payer must hold to settle one payment: its two signatures' fees (5,000 lamports
 * each) above the rent-exempt minimum of an account without data (890,880 lamports), which a
 * fee payer may not fall below.
 */
const FEE_PAYER_MIN_LAMPORTS = 890_880n + 2n * 5_000n;
/** SPL Token's TokenError::InsufficientFunds (the same code in Token-2022). */
const TOKEN_ERROR_INSUFFICIENT_FUNDS = 1;
/** What @x402/svm's exact facilitators (v2, v1) say when the transaction's simulation fails. */
const SIMULATION_FAILED = new Set(["invalid_exact_svm_transaction_simulation_failed", "transaction_simulation_failed"]);

export interface SolanaConfig {
  payTo: string;
  rpcUrl: string;
  /** The fee payer's 64-byte secret key in base58 (configuration; never logged). */
  facilitatorKeyBase58: string;
  usdcMint?: string;
}

export type SolanaRailErrorReason = "invalid_facilitator_key" | "reconcile_pending";

export class SolanaRailError extends Error {
  override readonly name = "SolanaRailError";
  constructor(
    readonly reason: SolanaRailErrorReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

const base58Bytes = getBase58Encoder();
const base58Text = getBase58Decoder();
const base64Bytes = getBase64Encoder();
const wireDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

/** PKCS#8 prefix of a raw 32-byte Ed25519 seed. */
const ED25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * The fee payer's key, held by node:crypto: signing is synchronous, so the rail is built
 * synchronously like the others; Ed25519 is deterministic, so the signature the fee payer
 * gives a message is also how reconciliation finds the transaction on chain.
 */
interface FeePayerKey {
  address: string;
  sign(message: Uint8Array): Uint8Array;
}

function feePayerKey(secretBase58: string): FeePayerKey {
  let secret: Uint8Array;
  try {
    secret = new Uint8Array(base58Bytes.encode(secretBase58));
  } catch {
    throw new SolanaRailError("invalid_facilitator_key", "SOLANA_FACILITATOR_KEY is not base58");
  }
  if (secret.length !== 64) throw new SolanaRailError("invalid_facilitator_key", "SOLANA_FACILITATOR_KEY is not a 64-byte secret key");
  const privateKey: KeyObject = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, secret.subarray(0, 32)]),
    format: "der",
    type: "pkcs8",
  });
  const publicKey = createPublicKey(privateKey).export({ format: "jwk" }).x;
  // The second half of a Solana secret key is its public key; a mismatch means a corrupt key.
  if (publicKey === undefined || !Buffer.from(publicKey, "base64url").equals(secret.subarray(32)))
    throw new SolanaRailError("invalid_facilitator_key", "SOLANA_FACILITATOR_KEY's public half does not match its seed");
  return {
    address: base58Text.decode(secret.subarray(32)),
    sign: (message) => new Uint8Array(sign(null, message, privateKey)),
  };
}

/**
 * The kit signer @x402/svm's facilitator signer wraps. It only needs `address` and
 * `signMessages`; `signTransactions` completes kit's TransactionSigner shape. @x402/svm is
 * typed against its own @solana/kit, hence the cast at this boundary.
 */
function kitSigner(key: FeePayerKey): Parameters<typeof toFacilitatorSvmSigner>[0] {
  const signatures = (messages: readonly Uint8Array[]) => Promise.resolve(messages.map((m) => Object.freeze({ [key.address]: key.sign(m) })));
  const signer = {
    address: key.address,
    signMessages: (messages: readonly { content: Uint8Array }[]) => signatures(messages.map((m) => m.content)),
    signTransactions: (transactions: readonly { messageBytes: Uint8Array }[]) => signatures(transactions.map((t) => t.messageBytes)),
  };
  return signer as unknown as Parameters<typeof toFacilitatorSvmSigner>[0];
}

/** The parts of an exact SVM payment (v1 or v2: both carry `payload.transaction`) the rail reads. */
interface PaymentTransaction {
  messageBytes: Uint8Array;
  /** Static account keys; the first is the fee payer. */
  accounts: string[];
  instructions: { program: string; accounts: number[] }[];
  blockhash: string;
}

export function paymentTransaction(payload: AnyPaymentPayload): PaymentTransaction | null {
  const transaction = (payload.payload as { transaction?: unknown } | undefined)?.transaction;
  if (typeof transaction !== "string" || transaction.length === 0) return null;
  try {
    const wire = wireDecoder.decode(base64Bytes.encode(transaction));
    const compiled = messageDecoder.decode(wire.messageBytes);
    // x402 clients build legacy or v0 messages; @x402/svm's facilitator reads no other.
    if (compiled.version !== "legacy" && compiled.version !== 0) return null;
    const accounts = compiled.staticAccounts.map(String);
    const instructions = compiled.instructions.map((ix) => ({ program: accounts[ix.programAddressIndex] ?? "", accounts: [...(ix.accountIndices ?? [])] }));
    return { messageBytes: new Uint8Array(wire.messageBytes), accounts, instructions, blockhash: compiled.lifetimeToken };
  } catch {
    return null;
  }
}

const isTokenProgram = (program: string) => TOKEN_PROGRAMS.includes(program);

/**
 * The paying account: the authority of the token transfer (its fourth account), as @x402/svm's
 * facilitator reads it. An authority signs, and signers are always static accounts.
 */
function tokenAuthority(tx: PaymentTransaction): string | null {
  const transfer = tx.instructions.find((ix) => isTokenProgram(ix.program));
  const index = transfer?.accounts[3];
  return index === undefined ? null : (tx.accounts[index] ?? null);
}

/** The RPC's error inside @x402/svm's "simulation failed" refusal, or undefined for any other refusal. */
function simulationError(verified: VerifyResponse): unknown {
  if (verified.isValid || !SIMULATION_FAILED.has(verified.invalidReason ?? "")) return undefined;
  const json = /^Simulation failed: (.*)$/s.exec(verified.invalidMessage ?? "")?.[1];
  if (json === undefined) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * A failed simulation is @x402/svm's one word for every on-chain refusal; the cause is in the
 * RPC's error. Two causes a client can act on are renamed so that our reason mapping
 * (src/x402/reasons.ts) reads them: SPL Token's InsufficientFunds (custom error 1) on the
 * transfer instruction -> payment_insufficient_funds, and an unknown (expired) blockhash ->
 * payment_expired.
 */
function renamedRefusal(payload: AnyPaymentPayload, verified: VerifyResponse): string | null {
  const err = simulationError(verified);
  if (err === undefined) return null;
  if (err === "BlockhashNotFound") return "blockhash_expired";
  const failed = (err as { InstructionError?: unknown } | null)?.InstructionError;
  if (!Array.isArray(failed) || failed.length !== 2) return null;
  const [index, cause] = failed as [unknown, unknown];
  if (Number((cause as { Custom?: unknown } | null)?.Custom) !== TOKEN_ERROR_INSUFFICIENT_FUNDS) return null;
  const instruction = paymentTransaction(payload)?.instructions[Number(index)];
  return instruction && isTokenProgram(instruction.program) ? "insufficient_funds" : null;
}

/** Our facilitator, with the refusals a client can act on named as such. */
function withActionableReasons(ours: FacilitatorClient): FacilitatorClient {
  return {
    verify: async (payload, requirements) => {
      const verified = await ours.verify(payload, requirements);
      const reason = renamedRefusal(payload as AnyPaymentPayload, verified);
      return reason ? { ...verified, invalidReason: reason } : verified;
    },
    settle: (payload, requirements) => ours.settle(payload, requirements),
    getSupported: () => ours.getSupported(),
  };
}

/**
 * Solana USDC, exact scheme: the client signs a TransferChecked to payTo's token account in a
 * transaction whose fee payer is our facilitator, which co-signs and sends it at settlement.
 */
export function solanaExactRail(cfg: SolanaConfig): X402Rail {
  const key = feePayerKey(cfg.facilitatorKeyBase58);
  const signer = toFacilitatorSvmSigner(kitSigner(key), { defaultRpcUrl: cfg.rpcUrl });
  const rpc = createSolanaRpc(cfg.rpcUrl);
  const usdcMint = cfg.usdcMint ?? SOLANA_USDC_MINT;
  return {
    rail: "solana" satisfies Rail,
    network: SOLANA_NETWORK,
    networkAliases: [],
    v1Network: "solana",
    // No rpcUrl: with one, the server embeds a recent blockhash in the offer, and OfferBook
    // builds each price's offer once; a mainnet blockhash expires after ~150 blocks (about a
    // minute), so clients would sign dead transactions. Without it, clients fetch their own.
    server: new ExactSvmServer(),
    resourceConfig(amount: bigint, maxTimeoutSeconds: number): ResourceConfig {
      return { scheme: "exact", network: SOLANA_NETWORK, payTo: cfg.payTo, price: { amount: amount.toString(), asset: usdcMint }, maxTimeoutSeconds };
    },
    owns: (r: PaymentRequirements) => r.network === SOLANA_NETWORK && r.scheme === "exact",
    async probe() {
      // Its chain, the mint and the fee payer's lamports: three calls at once, once per bring-up.
      const [genesis, mint, lamports] = await Promise.all([
        rpc.getGenesisHash().send(),
        rpc.getAccountInfo(usdcMint as Address, { encoding: "base64" }).send(),
        rpc.getBalance(key.address as Address).send(),
      ]);
      // A CAIP-2 Solana network is the first 32 characters of its genesis hash.
      if (!genesis.startsWith(SOLANA_NETWORK.slice("solana:".length)))
        throw new RailCheckFailed("network_mismatch", "its RPC serves another cluster than Solana mainnet: point SOLANA_RPC_URL at mainnet", { genesis_hash: genesis, network: SOLANA_NETWORK });
      if (!mint.value || !isTokenProgram(mint.value.owner)) throw new RailCheckFailed("asset_missing", `no USDC mint at ${usdcMint} on its cluster`, { mint: usdcMint });
      if (lamports.value < FEE_PAYER_MIN_LAMPORTS)
        throw new RailCheckFailed("facilitator_cannot_pay_fees", "the fee payer cannot pay one settlement's fees and stay rent-exempt: fund it", {
          fee_payer: key.address,
          lamports: Number(lamports.value),
          needed_lamports: Number(FEE_PAYER_MIN_LAMPORTS),
        });
    },
    register(facilitator: x402Facilitator) {
      // Registers the v2 scheme on mainnet and the v1 scheme on "solana" (x402-fetch 1.x).
      registerExactSvmScheme(facilitator, { signer, networks: SOLANA_NETWORK });
    },
    facilitator: withActionableReasons,
    paymentKey(payload) {
      const tx = paymentTransaction(payload);
      // The hash of the message the client signed. Any change to the message voids the
      // client's signature, while the wire around it (the fee payer's still-empty signature
      // slot, the encoding) can vary freely; the chain lands a message at most once (its status
      // cache, then the blockhash's expiry), and @x402/svm's settlement cache keys on it too.
      // The client's signature would be as unique, but rests on Ed25519 verifiers refusing
      // malleable encodings; the message hash does not. A v1 and a v2 payload of one
      // transaction share the key.
      return tx ? `solana-tx:${createHash("sha256").update(tx.messageBytes).digest("hex")}` : null;
    },
    payer(payload) {
      const tx = paymentTransaction(payload);
      return tx ? tokenAuthority(tx) : null;
    },
    async reconcile(payload): Promise<ChainOutcome> {
      const tx = paymentTransaction(payload);
      if (!tx) return { settled: false, expired: true };
      // Only our fee payer's signature can land this transaction, and Ed25519 signatures are
      // deterministic: the one we would give it is its id on chain. Its blockhash is asked
      // about before its status: a transaction can land only while its blockhash is valid, so
      // "expired, then not found" is final.
      const valid = (await rpc.isBlockhashValid(tx.blockhash as Blockhash, { commitment: "confirmed" }).send()).value;
      const ours = tx.accounts[0] === key.address;
      const signature = base58Text.decode(key.sign(tx.messageBytes)) as Signature;
      const [status] = ours ? (await rpc.getSignatureStatuses([signature], { searchTransactionHistory: true }).send()).value : [null];
      if (status && status.confirmationStatus !== "processed") {
        // Landed. If it failed there, fees were paid, no USDC moved, and it cannot land again.
        return status.err === null ? { settled: true, transaction: signature } : { settled: false, expired: true };
      }
      // Not (or not yet irrevocably) landed while it still could: a settlement sent before a
      // restart may be in flight. Releasing now would let the payment buy a second read if it
      // lands; the claim stays open until the blockhash has expired (about a minute on mainnet).
      if (ours && (valid || status)) throw new SolanaRailError("reconcile_pending", "the transaction can still land; its claim stays open");
      return { settled: false, expired: !valid };
    },
  };
}

/** The Solana rail when the configuration names one (PAY_TO_SOLANA and its RPC and key). */
export function solanaRails(env: PaymentsEnv): X402Rail[] {
  if (!env.PAY_TO_SOLANA || !env.SOLANA_RPC_URL || !env.SOLANA_FACILITATOR_KEY) return [];
  return [solanaExactRail({ payTo: env.PAY_TO_SOLANA, rpcUrl: env.SOLANA_RPC_URL, facilitatorKeyBase58: env.SOLANA_FACILITATOR_KEY })];
}
