// A daily spending cap: before a payment is signed, its price is added to what was paid today
// (UTC day, the day the board's own daily counts use) and to the payments still in flight; past
// the cap the payment is refused here, and nothing is signed or sent. A payment whose outcome
// could not be learned (the connection dropped after it was sent) counts as spent.

import type { ClientError } from "./errors.js";
import type { ReceiptLog } from "./receipts.js";

/** USDC base units as a bigint; numbers and strings of digits are accepted. */
export type BaseUnits = bigint | number | string;

export function baseUnits(value: BaseUnits): bigint {
  if (typeof value === "bigint") return value;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
  if (typeof value === "string" && /^\d+$/.test(value)) return BigInt(value);
  throw new RangeError(`not a whole number of USDC base units: ${String(value)}`);
}

/** 6-decimal USDC base units as text: 5000 -> "0.005". */
export function formatUsdc(units: bigint): string {
  const whole = units / 1_000_000n;
  const frac = (units % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole.toString();
}

export interface Hold {
  /** Paid (its receipt is now in the log) or not charged: the hold goes. */
  release(): void;
  /** Outcome unknown: the amount stays counted for today. */
  keep(): void;
}

export class SpendCap {
  private inFlight = 0n;
  private readonly unknown: { at: number; amount: bigint }[] = [];

  constructor(
    readonly limit: bigint,
    private readonly receipts: ReceiptLog,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** 00:00 UTC of today. */
  private dayStart(): Date {
    const d = this.now();
    return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()));
  }

  /** Paid today, plus payments in flight and payments of unknown outcome. */
  spentToday(): bigint {
    const since = this.dayStart().getTime();
    const unknown = this.unknown.filter((u) => u.at >= since).reduce((s, u) => s + u.amount, 0n);
    return this.receipts.spentSince(this.dayStart()) + unknown + this.inFlight;
  }

  /** A hold on `amount`, or the refusal when it would take today past the cap. */
  hold(amount: bigint): Hold | ClientError {
    const spent = this.spentToday();
    if (spent + amount > this.limit) {
      return {
        code: "daily_cap_exceeded",
        message: `paying ${formatUsdc(amount)} USDC would take today's spending to ${formatUsdc(spent + amount)} USDC, past the daily cap of ${formatUsdc(this.limit)} USDC; nothing was paid`,
        price: amount.toString(),
      };
    }
    this.inFlight += amount;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.inFlight -= amount;
      return true;
    };
    return {
      release: () => void close(),
      keep: () => {
        if (close()) this.unknown.push({ at: this.now().getTime(), amount });
      },
    };
  }
}
