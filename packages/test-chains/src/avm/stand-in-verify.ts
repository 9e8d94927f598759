import { createPublicKey, verify as verifySignature } from "node:crypto";
import type { StandInTxn } from "./stand-in-wire.js";
import { reject, type StandInRejection } from "./stand-in-rejection.js";
import { MAX_GROUP_SIZE, MAX_TXN_LIFE, MIN_TXN_FEE } from "./stand-in-network.js";

/**
 * The algod stand-in's stateless checks on a transaction group (algod's verify.TxnGroup): shape,
 * what the stand-in models, ed25519 signatures against each authorizer, validity window, and fee
 * pooling. Ledger-dependent checks are in stand-in-ledger.ts.
 */

// DER prefix of an Ed25519 SubjectPublicKeyInfo; node:crypto takes raw keys only in this form.
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface VerifyOptions {
  /** Simulate's allow-empty-signatures: unsigned transactions pass, wrong signatures still fail. */
  allowEmptySignatures: boolean;
}

export function verifyGroup(txns: readonly StandInTxn[], opts: VerifyOptions): StandInRejection | undefined {
  if (txns.length === 0) return reject("empty_group", "verify", "empty transaction group");
  if (txns.length > MAX_GROUP_SIZE) {
    return reject("group_too_large", "verify", `group size ${txns.length} exceeds maximum ${MAX_GROUP_SIZE}`);
  }
  let fees = 0n;
  for (const [i, t] of txns.entries()) {
    const problem = unsupported(t) ?? checkWindow(t) ?? checkSignature(t, opts);
    if (problem) return { ...problem, groupIndex: i };
    fees += t.stxn.txn.fee;
  }
  // Fee pooling: the group pays at least the minimum fee for each of its transactions.
  const required = MIN_TXN_FEE * BigInt(txns.length);
  if (fees < required) {
    return reject("fee_too_small", "verify", `txgroup had ${fees} in fees, which is less than the minimum ${txns.length} * ${MIN_TXN_FEE}`);
  }
  return undefined;
}

/** Refuses what the stand-in does not model rather than accepting it unchecked. */
function unsupported(t: StandInTxn): StandInRejection | undefined {
  const { stxn, txId } = t;
  const txn = stxn.txn;
  const no = (what: string) => reject("unsupported_transaction", "verify", `transaction ${txId}: the algod stand-in does not model ${what}`);
  if (stxn.msig || stxn.lsig || stxn.pqsig) return no("multisig, logic-sig or post-quantum signatures");
  if (txn.type !== "pay" && txn.type !== "axfer") return no(`"${txn.type}" transactions`);
  if (txn.lease && txn.lease.some((b) => b !== 0)) return no("leases");
  if (txn.payment?.closeRemainderTo) return no("account close-outs");
  if (txn.assetTransfer?.closeRemainderTo) return no("asset close-outs");
  if (txn.assetTransfer?.assetSender) return no("clawback transfers");
  return undefined;
}

function checkWindow({ stxn, txId }: StandInTxn): StandInRejection | undefined {
  const { firstValid, lastValid } = stxn.txn;
  if (lastValid < firstValid) {
    return reject("validity_window_invalid", "verify", `transaction ${txId}: transaction invalid range (${firstValid}--${lastValid})`);
  }
  if (lastValid - firstValid > MAX_TXN_LIFE) {
    return reject("validity_window_invalid", "verify", `transaction ${txId}: transaction window size excessive (${firstValid}--${lastValid}, max ${MAX_TXN_LIFE})`);
  }
  return undefined;
}

function checkSignature({ stxn, txId }: StandInTxn, opts: VerifyOptions): StandInRejection | undefined {
  if (!stxn.sig) {
    if (opts.allowEmptySignatures) return undefined;
    return reject("missing_signature", "verify", `transaction ${txId}: signedtxn has no sig`);
  }
  const authorizer = stxn.sgnr ?? stxn.txn.sender;
  if (!verifyEd25519(authorizer.publicKey, stxn.txn.bytesToSign(), stxn.sig)) {
    return reject("invalid_signature", "verify", `transaction ${txId}: signature does not verify against authorizer ${authorizer.toString()}`);
  }
  return undefined;
}

function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: "der", type: "spki" });
  return verifySignature(null, message, key, signature);
}
