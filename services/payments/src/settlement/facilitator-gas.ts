import type { Logger } from "@board/service-kit";
import { formatEther, type Address } from "viem";
import { RailCheckFailed } from "../rails/backend-failure.js";

/**
 * Where the facilitator's balance stands: `empty` when it cannot pay for one settlement
 * transaction (its gas limit at the node's fee: the node refuses a transaction its sender
 * cannot pay for in full), `low` below the operator's floor, `ok` otherwise.
 */
export type GasLevel = "ok" | "low" | "empty";

/**
 * What one settlement transaction may cost: its gas limit at 1.2 x eth_gasPrice (viem's fee
 * estimate leaves that room for the base fee to rise, and the node wants the whole maximum in
 * the balance). Base's L1 data fee comes on top; the floor is there for it.
 */
export const settlementCost = (gasLimit: bigint, gasPrice: bigint) => (gasLimit * gasPrice * 6n) / 5n;

export function gasLevel(balance: bigint, settlementCost: bigint, floor: bigint): GasLevel {
  if (balance < settlementCost) return "empty";
  return balance < floor ? "low" : "ok";
}

/** The facilitator's balance and what one settlement transaction costs now, in wei. */
export interface GasReading {
  balance: bigint;
  settlementCost: bigint;
}

export interface FacilitatorGasOptions {
  /** The CAIP-2 network, as the gauge's label and in log lines. */
  network: string;
  /** The settling account (public: said in log lines, so an operator knows what to fund). */
  facilitator: Address;
  /** Below this balance the operator is warned (BASE_FACILITATOR_LOW_BALANCE_ETH). */
  floor: bigint;
  /** Asks the node for a reading (balance and fee). */
  read(): Promise<GasReading>;
  log: Logger;
  /** The balance in wei, each time it is read (the payments_facilitator_balance_wei gauge). */
  gauge?: (network: string, wei: bigint) => void;
}

/**
 * The Base facilitator's gas: read at each check of the rail and every so often while it is
 * offered, shown as a gauge, warned once when it falls below the floor (and said again when it
 * is back above), and, when it cannot pay for one settlement, a RailCheckFailed that takes the
 * rails it pays for down until it is funded.
 */
export class FacilitatorGas {
  private level: GasLevel | null = null;

  constructor(private readonly opts: FacilitatorGasOptions) {}

  /** Takes a reading in: the gauge, a line when the level changed, and the failure when it is empty. */
  note(reading: GasReading): { level: GasLevel; failure: RailCheckFailed | null } {
    const { network, facilitator, floor, log } = this.opts;
    this.opts.gauge?.(network, reading.balance);
    const level = gasLevel(reading.balance, reading.settlementCost, floor);
    const fields = { network, facilitator, balance_eth: formatEther(reading.balance), floor_eth: formatEther(floor), settlement_cost_eth: formatEther(reading.settlementCost) };
    const before = this.level;
    this.level = level;
    if (level === "low" && before !== "low")
      log.warn({ ...fields, warning: "facilitator_balance_low" }, "the facilitator's balance is below its floor (BASE_FACILITATOR_LOW_BALANCE_ETH): fund it before it cannot pay for settlements");
    if (level === "ok" && before !== null && before !== "ok") log.info(fields, "the facilitator's balance is above its floor again");
    const failure =
      level === "empty"
        ? new RailCheckFailed("facilitator_cannot_pay_fees", "the facilitator cannot pay for one settlement transaction: fund it", fields)
        : null;
    return { level, failure };
  }

  /**
   * Reads every `intervalMs` while `offered` (the rails it pays for: their checks read it
   * otherwise) and tells `onLevel` each change of level (not a reading that agrees with the
   * check's). A reading that fails changes nothing: the node's outages are the rail watch's and
   * the settlements' to tell. Returns how to stop.
   */
  watch(intervalMs: number, onLevel: (level: GasLevel, failure: RailCheckFailed | null) => void, offered: () => boolean = () => true): () => void {
    let reading = false;
    const timer = setInterval(() => {
      if (reading || !offered()) return;
      reading = true;
      const before = this.level;
      void this.opts
        .read()
        .then((r) => {
          const { level, failure } = this.note(r);
          if (level !== before) onLevel(level, failure);
        })
        .catch(() => undefined)
        .finally(() => (reading = false));
    }, intervalMs);
    // The bus connection keeps the process alive; this watch must not.
    timer.unref();
    return () => clearInterval(timer);
  }
}
