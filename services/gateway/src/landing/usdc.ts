const DECIMALS = 6;
const SCALE = 10n ** BigInt(DECIMALS);

/**
 * USDC base units (6 decimals) as a decimal amount, exactly: integer arithmetic only, at
 * least two decimals, no trailing zeros beyond them (250000n -> "0.25", 5000n -> "0.005").
 */
export function formatUsdc(units: bigint): string {
  if (units < 0n) throw new RangeError("a price in base units is never negative");
  const whole = units / SCALE;
  const fraction = (units % SCALE).toString().padStart(DECIMALS, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction}`;
}
