import { randomUUID } from "node:crypto";
import { getAddress, type Address, type Hex } from "viem";
import type { Authorization, GatewayReason } from "./check.js";

/** A payment the stand-in accepted: the payer's balance was debited and the payee's credited. */
export interface GatewaySettlement {
  /** The UUID returned as `transaction` (Circle batches onchain later; there is no tx hash). */
  id: string;
  network: string;
  payer: Address;
  payTo: Address;
  /** USDC base units. */
  amount: bigint;
  nonce: Hex;
  /** Unix seconds at settlement. */
  settledAt: number;
}

/**
 * Gateway balances (one per depositor: the stand-in serves one domain), spent authorization
 * nonces and accepted settlements. settle() is synchronous, so a check and its debit cannot
 * interleave with another request's.
 */
export class GatewayLedger {
  private readonly balances = new Map<string, bigint>();
  private readonly spentNonces = new Set<string>();
  private readonly accepted: GatewaySettlement[] = [];

  deposit(address: Address, amount: bigint): bigint {
    if (amount <= 0n) throw new RangeError("deposit amount must be positive USDC base units");
    const balance = this.balanceOf(address) + amount;
    this.balances.set(key(address), balance);
    return balance;
  }

  balanceOf(address: Address): bigint {
    return this.balances.get(key(address)) ?? 0n;
  }

  settle(network: string, authorization: Authorization, settledAt: number): GatewaySettlement | GatewayReason {
    // Nonces are the authorizer's (EIP-3009), so a replay is caught per payer and network.
    const nonceKey = `${network}:${key(authorization.from)}:${authorization.nonce.toLowerCase()}`;
    if (this.spentNonces.has(nonceKey)) return "nonce_already_used";
    const balance = this.balanceOf(authorization.from);
    if (balance < authorization.value) return "insufficient_balance";

    this.spentNonces.add(nonceKey);
    this.balances.set(key(authorization.from), balance - authorization.value);
    this.balances.set(key(authorization.to), this.balanceOf(authorization.to) + authorization.value);
    const settlement: GatewaySettlement = {
      id: randomUUID(),
      network,
      payer: getAddress(authorization.from),
      payTo: getAddress(authorization.to),
      amount: authorization.value,
      nonce: authorization.nonce,
      settledAt,
    };
    this.accepted.push(settlement);
    return settlement;
  }

  settlements(): GatewaySettlement[] {
    return this.accepted.map((s) => ({ ...s }));
  }
}

function key(address: Address): string {
  return address.toLowerCase();
}
