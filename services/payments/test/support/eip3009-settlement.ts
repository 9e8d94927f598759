import { BaseError, ContractFunctionRevertedError, parseAbi, type Address, type Hex } from "viem";
import type { Eip3009Authorization } from "../../src/rails/eip3009.js";
import { refusalOfRevert } from "../../src/settlement/reverts.js";
import type { AuthorizationTarget, SettleAuthorization, VerifyAuthorization } from "../../src/rails/mpp/server-method.js";

// The MPP method's chain side one transaction at a time, for the rail's unit tests (MPP's
// verification reading balance and nonce, settlement simulated, sent and awaited alone). The
// service settles MPP charges in batches instead (settlement/batcher.ts).

/**
 * What settlement needs of a facilitator account. x402's FacilitatorEvmSigner (the payments
 * service's `baseSigner`) has this shape, so both rails can share one account, one nonce
 * manager and one broadcast queue.
 */
export interface SettlementSigner {
  readContract(args: { address: Address; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }): Promise<unknown>;
  writeContract(args: { address: Address; abi: readonly unknown[]; functionName: string; args: readonly unknown[]; gas?: bigint }): Promise<Hex>;
  waitForTransactionReceipt(args: { hash: Hex; timeout?: number }): Promise<{ status: string }>;
}

/** The EIP-3009 subset of FiatToken v2.2 (Base USDC): the `bytes signature` overload. */
export const eip3009Abi = parseAbi([
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function balanceOf(address account) view returns (uint256)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);

/** The revert reason of a call that the chain refused, or null when the error is not a revert. */
function revertReason(err: unknown): string | null {
  if (!(err instanceof BaseError)) return null;
  const reverted = err.walk((e) => e instanceof ContractFunctionRevertedError);
  if (!(reverted instanceof ContractFunctionRevertedError)) return null;
  return reverted.reason ?? reverted.shortMessage;
}

const refusedByChain = (reason: string, transaction?: Hex) => refusalOfRevert(reason, transaction);

const transferArgs = (a: Eip3009Authorization) => [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, a.signature] as const;

export interface Eip3009SettlementOptions {
  /** How long to wait for a sent transaction's receipt before calling its outcome unknown. */
  receiptTimeoutMs?: number;
}

/** verifyAuthorization and settleAuthorization for an EIP-3009 token, through one facilitator account. */
export function eip3009Settlement(
  signer: SettlementSigner,
  options: Eip3009SettlementOptions = {},
): { verifyAuthorization: VerifyAuthorization; settleAuthorization: SettleAuthorization } {
  const timeout = options.receiptTimeoutMs ?? 30_000;

  const verifyAuthorization: VerifyAuthorization = async (a, { token }: AuthorizationTarget) => {
    const [used, balance] = await Promise.all([
      signer.readContract({ address: token, abi: eip3009Abi, functionName: "authorizationState", args: [a.from, a.nonce] }),
      signer.readContract({ address: token, abi: eip3009Abi, functionName: "balanceOf", args: [a.from] }),
    ]);
    if (used === true) return { ok: false, reason: "payment_already_used", detail: "the authorization was already used on chain" };
    if (typeof balance !== "bigint" || balance < a.value) return { ok: false, reason: "payment_insufficient_funds", detail: "the payer's USDC balance is below the amount" };
    return { ok: true };
  };

  const settleAuthorization: SettleAuthorization = async (a, { token }: AuthorizationTarget) => {
    const call = { address: token, abi: eip3009Abi, functionName: "transferWithAuthorization", args: transferArgs(a) };
    // Simulate first: a refusal costs no gas and no nonce, and its revert reason is readable.
    try {
      await signer.readContract(call);
    } catch (err) {
      const reason = revertReason(err);
      if (reason !== null) return refusedByChain(reason);
      throw err;
    }
    let hash: Hex;
    try {
      hash = await signer.writeContract(call);
    } catch (err) {
      // A revert at gas estimation is definite (nothing was sent); anything else may have left.
      const reason = revertReason(err);
      if (reason !== null) return refusedByChain(reason);
      throw err;
    }
    const receipt = await signer.waitForTransactionReceipt({ hash, timeout });
    if (receipt.status !== "success") return refusedByChain("transaction reverted", hash);
    return { ok: true, transaction: hash };
  };

  return { verifyAuthorization, settleAuthorization };
}
