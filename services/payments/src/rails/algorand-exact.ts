import type { Rail } from "@board/proto";
import type { x402Facilitator } from "@x402/core/facilitator";
import type { FacilitatorClient, ResourceConfig } from "@x402/core/server";
import type { PaymentRequirements, SettleResponse, VerifyResponse } from "@x402/core/types";
import { ALGORAND_MAINNET_CAIP2, ALGORAND_MAINNET_GENESIS_HASH, toFacilitatorAvmSigner, USDC_MAINNET_ASA_ID } from "@x402/avm";
import { ExactAvmScheme as ExactAvmFacilitator } from "@x402/avm/exact/facilitator";
import { ExactAvmScheme as ExactAvmServer } from "@x402/avm/exact/server";
import algosdk from "algosdk";
import type { PaymentsEnv } from "../env.js";
import { RailCheckFailed } from "./backend-failure.js";
import type { AnyPaymentPayload } from "./payload.js";
import type { ChainOutcome, X402Rail } from "./rail.js";

/** The CAIP-2 spelling @x402/avm offers and normalizes to: the genesis hash's first 32 characters. */
export const ALGORAND_NETWORK = ALGORAND_MAINNET_CAIP2;
/** The full genesis-hash spelling, which @x402/avm's client and facilitator accept too. */
export const ALGORAND_NETWORK_FULL = `algorand:${ALGORAND_MAINNET_GENESIS_HASH}` as const;
/** Circle's USDC on Algorand mainnet (ASA id, 6 decimals). */
export const ALGORAND_USDC_ASA = USDC_MAINNET_ASA_ID;

/** Circle's USDC ASA id as algosdk takes it. */
const ALGORAND_USDC_ASA_ID = BigInt(ALGORAND_USDC_ASA);
/** One settlement's fees, paid by the fee payer: its own zero payment and the client's transfer, 1,000 microAlgos each. */
const SETTLEMENT_FEES = 2_000n;
/** Algorand's largest atomic group. */
const MAX_GROUP_SIZE = 16;
/** Rounds back from the latest that algod's pending-transaction lookup searches (mainnet MaxTxnLife). */
const ALGOD_LOOKUP_ROUNDS = 1000n;

/** What @x402/avm's exact facilitator says when the group's simulation, or its submission, is refused. */
const SIMULATION_FAILED = "invalid_exact_avm_simulation_failed";
const SETTLEMENT_FAILED = "invalid_exact_avm_settlement_failed";
const CONFIRMATION_FAILED = "invalid_exact_avm_confirmation_failed";

export interface AlgorandConfig {
  payTo: string;
  algodUrl: string;
  algodToken: string;
  /** The fee payer's 25-word mnemonic (configuration; never logged). */
  facilitatorMnemonic: string;
}

export type AlgorandRailErrorReason = "invalid_facilitator_mnemonic" | "invalid_pay_to" | "algod_unavailable" | "settlement_outcome_unknown" | "reconcile_pending" | "reconcile_unknown";

export class AlgorandRailError extends Error {
  override readonly name = "AlgorandRailError";
  constructor(
    readonly reason: AlgorandRailErrorReason,
    detail: string,
  ) {
    super(`${reason}: ${detail}`);
  }
}

/** The fee payer's 64-byte secret key in base64, the form @x402/avm's signer takes. */
function facilitatorKeyBase64(mnemonic: string): string {
  try {
    return Buffer.from(algosdk.mnemonicToSecretKey(mnemonic.trim().split(/\s+/).join(" ")).sk).toString("base64");
  } catch {
    // algosdk's message is generic, but nothing of the mnemonic may travel: ours says only which setting.
    throw new AlgorandRailError("invalid_facilitator_mnemonic", "ALGORAND_FACILITATOR_MNEMONIC is not a valid 25-word Algorand mnemonic");
  }
}

/** The parts of an exact AVM payment (`payload.paymentGroup`, `payload.paymentIndex`) the rail reads. */
interface PaymentGroup {
  /** base64 group id, shared by every transaction of the group. */
  groupId: string;
  transactions: algosdk.Transaction[];
  /** The client's USDC transfer. */
  payment: algosdk.Transaction;
}

/** A group member: signed by the client, or (the fee payer's) still unsigned. */
function decodeMember(encoded: unknown): algosdk.Transaction | null {
  if (typeof encoded !== "string" || encoded.length === 0) return null;
  const bytes = Buffer.from(encoded, "base64");
  try {
    return algosdk.decodeSignedTransaction(bytes).txn;
  } catch {
    try {
      return algosdk.decodeUnsignedTransaction(bytes);
    } catch {
      return null;
    }
  }
}

/**
 * The group of an exact AVM payment, or null when a member does not decode, the members do not
 * all carry one and the same group id, or paymentIndex does not point at an asset transfer.
 */
export function paymentGroup(payload: AnyPaymentPayload): PaymentGroup | null {
  const inner = payload.payload as { paymentGroup?: unknown; paymentIndex?: unknown } | undefined;
  const encoded = inner?.paymentGroup;
  const index = inner?.paymentIndex;
  if (!Array.isArray(encoded) || encoded.length === 0 || encoded.length > MAX_GROUP_SIZE || typeof index !== "number") return null;
  const transactions: algosdk.Transaction[] = [];
  for (const member of encoded) {
    const txn = decodeMember(member);
    if (!txn) return null;
    transactions.push(txn);
  }
  const groupIds = new Set(transactions.map((t) => (t.group && t.group.some((b) => b !== 0) ? Buffer.from(t.group).toString("base64") : "")));
  const [groupId] = groupIds;
  if (groupIds.size !== 1 || !groupId) return null;
  const payment = transactions[index];
  if (!payment || payment.type !== algosdk.TransactionType.axfer || !payment.assetTransfer) return null;
  return { groupId, transactions, payment };
}

/** The group's validity window: it can land only in rounds where every member is valid. */
function validity(group: PaymentGroup): { firstValid: bigint; lastValid: bigint } {
  const firsts = group.transactions.map((t) => t.firstValid);
  const lasts = group.transactions.map((t) => t.lastValid);
  return { firstValid: firsts.reduce((a, b) => (b > a ? b : a)), lastValid: lasts.reduce((a, b) => (b < a ? b : a)) };
}

/**
 * @x402/avm names every on-chain refusal "simulation failed" (or, at submission, "settlement
 * failed"); the cause is in algod's message. Those a client can act on are renamed so our
 * reason mapping (src/x402/reasons.ts) reads them: the payer's USDC short (or not held at all)
 * -> payment_insufficient_funds, a group already on chain -> payment_already_used, a group past
 * its last valid round -> payment_expired.
 */
function renamedRefusal(payload: AnyPaymentPayload, reason: string | undefined, message: string | undefined): string | null {
  if (reason !== SIMULATION_FAILED && reason !== SETTLEMENT_FAILED) return null;
  const text = message ?? "";
  if (/transaction already in ledger/.test(text)) return "already_used";
  if (/underflow on subtracting/.test(text)) return "insufficient_funds";
  const payer = paymentGroup(payload)?.payment.sender.toString();
  if (payer && new RegExp(`asset \\d+ missing from ${payer}`).test(text)) return "insufficient_funds";
  if (/txn dead/.test(text)) return "expired";
  return null;
}

/**
 * @x402/avm reports an algod it could not ask (no connection, our token refused, a server
 * error) as a failed simulation too. That is no refusal of the payment: thrown, so the claim
 * desk answers service_unavailable (retry) and claims nothing. Only algod's own verdicts (a 400,
 * or a simulation result with a failure message) refuse it.
 */
function algodUnavailable(reason: string | undefined, message: string | undefined): boolean {
  if (reason !== SIMULATION_FAILED) return false;
  const text = message ?? "";
  const status = /^Request to \S+ failed with status (\d{3})/.exec(text)?.[1];
  return text === "fetch failed" || (status !== undefined && status !== "400");
}

/** @x402/avm's settlement failures after which the group may still be (or have been) committed. */
function outcomeUnknown(settled: SettleResponse): boolean {
  if (settled.errorReason === CONFIRMATION_FAILED) return true;
  const message = settled.errorMessage ?? "";
  return settled.errorReason === SETTLEMENT_FAILED && message.startsWith("Failed to submit transaction:") && !/failed with status 4\d\d/.test(message);
}

/** Our facilitator, with the refusals a client can act on named as such. */
function withActionableReasons(ours: FacilitatorClient): FacilitatorClient {
  return {
    async verify(payload, requirements): Promise<VerifyResponse> {
      const verified = await ours.verify(payload, requirements);
      if (verified.isValid) return verified;
      if (algodUnavailable(verified.invalidReason, verified.invalidMessage)) throw new AlgorandRailError("algod_unavailable", verified.invalidMessage ?? "no answer");
      const reason = renamedRefusal(payload as AnyPaymentPayload, verified.invalidReason, verified.invalidMessage);
      return reason ? { ...verified, invalidReason: reason } : verified;
    },
    async settle(payload, requirements): Promise<SettleResponse> {
      const settled = await ours.settle(payload, requirements);
      if (settled.success) return settled;
      // Submitted without a confirmation, or a submission algod did not answer with a refusal
      // (4xx): the group may land. Thrown, so the claim stays open for reconciliation instead
      // of being closed as failed.
      if (outcomeUnknown(settled)) throw new AlgorandRailError("settlement_outcome_unknown", settled.errorMessage ?? settled.errorReason ?? "no outcome");
      const reason = renamedRefusal(payload as AnyPaymentPayload, settled.errorReason, settled.errorMessage);
      return reason ? { ...settled, errorReason: reason } : settled;
    },
    getSupported: () => ours.getSupported(),
  };
}

const isNotFound = (err: unknown) => (err as { response?: { status?: unknown } } | null)?.response?.status === 404;

/**
 * Algorand USDC (ASA 31566704), exact scheme: the client signs a USDC transfer to payTo in an
 * atomic group whose first transaction, a zero payment from our fee payer to itself, pays the
 * whole group's fees; our facilitator signs that one and submits the group at settlement.
 */
export function algorandExactRail(cfg: AlgorandConfig): X402Rail {
  if (!algosdk.isValidAddress(cfg.payTo)) throw new AlgorandRailError("invalid_pay_to", "PAY_TO_ALGORAND is not an Algorand address");
  const feePayerKey = facilitatorKeyBase64(cfg.facilitatorMnemonic);
  const feePayerAddress = algosdk.encodeAddress(Buffer.from(feePayerKey, "base64").subarray(32));
  const signer = toFacilitatorAvmSigner(feePayerKey, { mainnetUrl: cfg.algodUrl, algodToken: cfg.algodToken });
  const algod = new algosdk.Algodv2(cfg.algodToken, cfg.algodUrl);
  const onNetwork = (network: string) => network === ALGORAND_NETWORK || network === ALGORAND_NETWORK_FULL;
  return {
    rail: "algorand" satisfies Rail,
    network: ALGORAND_NETWORK,
    networkAliases: [ALGORAND_NETWORK_FULL],
    // x402-fetch 1.x knows no Algorand network.
    v1Network: null,
    server: new ExactAvmServer(),
    resourceConfig(amount: bigint, maxTimeoutSeconds: number): ResourceConfig {
      return { scheme: "exact", network: ALGORAND_NETWORK, payTo: cfg.payTo, price: { amount: amount.toString(), asset: ALGORAND_USDC_ASA }, maxTimeoutSeconds };
    },
    owns: (r: PaymentRequirements) => r.scheme === "exact" && onNetwork(r.network),
    async probe() {
      // Its chain, the fee payer's spendable microAlgos and payTo's USDC holding: three calls at once, once per bring-up.
      const [params, feePayer, holding] = await Promise.all([
        algod.getTransactionParams().do(),
        algod.accountInformation(feePayerAddress).do(),
        algod
          .accountAssetInformation(cfg.payTo, ALGORAND_USDC_ASA_ID)
          .do()
          .catch((err: unknown) => {
            if (isNotFound(err)) return null;
            throw err;
          }),
      ]);
      const genesisHash = Buffer.from(params.genesisHash ?? new Uint8Array()).toString("base64");
      if (genesisHash !== ALGORAND_MAINNET_GENESIS_HASH)
        throw new RailCheckFailed("network_mismatch", "algod serves another network than Algorand mainnet: point ALGOD_URL at mainnet", { genesis_hash: genesisHash, genesis_id: params.genesisID ?? null });
      const spendable = feePayer.amount - feePayer.minBalance;
      if (spendable < SETTLEMENT_FEES)
        throw new RailCheckFailed("facilitator_cannot_pay_fees", "the fee payer cannot pay one settlement's fees above its minimum balance: fund it", {
          fee_payer: feePayerAddress,
          spendable_microalgos: Number(spendable),
          needed_microalgos: Number(SETTLEMENT_FEES),
        });
      // An account that has not opted in to the asset cannot receive it: every payment would fail.
      if (!holding) throw new RailCheckFailed("pay_to_not_opted_in", `PAY_TO_ALGORAND has not opted in to USDC (ASA ${ALGORAND_USDC_ASA}): it cannot receive payments`, { pay_to: cfg.payTo });
    },
    register(facilitator: x402Facilitator) {
      // Both spellings, so a payment is settled whichever one its requirements carry.
      facilitator.register([ALGORAND_NETWORK, ALGORAND_NETWORK_FULL], new ExactAvmFacilitator(signer));
    },
    facilitator: withActionableReasons,
    paymentKey(payload) {
      const group = paymentGroup(payload);
      // The group id is a hash over every transaction of the group, and the client's signature
      // covers it: no other group can carry it, and algod lands a transaction at most once. The
      // facilitator keeps no record of what it settled; the claims table does, by this key.
      return group ? `algorand:${group.groupId}` : null;
    },
    payer: (payload) => paymentGroup(payload)?.payment.sender.toString() ?? null,
    async reconcile(payload): Promise<ChainOutcome> {
      const group = paymentGroup(payload);
      if (!group) return { settled: false, expired: true };
      const txId = group.payment.txID();
      const { firstValid, lastValid } = validity(group);
      // The round is read before the lookup: a group past its last valid round before the
      // lookup began cannot land after it, so "past, then not found" is final.
      const before = (await algod.status().do()).lastRound;
      let confirmedRound = 0n;
      try {
        confirmedRound = (await algod.pendingTransactionInformation(txId).do()).confirmedRound ?? 0n;
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      // Groups are atomic: the client's transfer landed, so did the group.
      if (confirmedRound > 0n) return { settled: true, transaction: txId };
      // A settlement sent before a restart may still land: the claim stays open until it cannot.
      if (before <= lastValid) throw new AlgorandRailError("reconcile_pending", "the group can still land; its claim stays open");
      const after = (await algod.status().do()).lastRound;
      // algod only searches its last MaxTxnLife rounds; beyond them, only an indexer can tell.
      if (after > firstValid + ALGOD_LOOKUP_ROUNDS) throw new AlgorandRailError("reconcile_unknown", "the group is older than algod's lookup window; an operator must check");
      return { settled: false, expired: true };
    },
  };
}

/** The Algorand rail when the configuration names one (PAY_TO_ALGORAND, its algod and fee payer). */
export function algorandRails(env: PaymentsEnv): X402Rail[] {
  if (!env.PAY_TO_ALGORAND || !env.ALGOD_URL || !env.ALGORAND_FACILITATOR_MNEMONIC) return [];
  return [
    algorandExactRail({
      payTo: env.PAY_TO_ALGORAND,
      algodUrl: env.ALGOD_URL,
      algodToken: env.ALGOD_TOKEN,
      facilitatorMnemonic: env.ALGORAND_FACILITATOR_MNEMONIC,
    }),
  ];
}
