/** Display forms of the board's numbers (prices, changes, scores). Money of ours is usdc.ts. */

const PRICE = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const SMALL_PRICE = new Intl.NumberFormat("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 4 });

export function formatPrice(price: number): string {
  return (price < 1 ? SMALL_PRICE : PRICE).format(price);
}

/** A day change with its sign: +1.25%, -0.40%, 0.00%. */
export function formatChange(pct: number): string {
  const fixed = pct.toFixed(2);
  return `${pct > 0 && fixed !== "0.00" ? "+" : ""}${fixed === "-0.00" ? "0.00" : fixed}%`;
}

/** A 0-100 score: whole numbers as they are, others to one decimal. */
export function formatScore(score: number): string {
  return Number.isInteger(score) ? String(score) : score.toFixed(1);
}

/** An ISO date-time as a reader wants it: "2026-11-19 13:00 (UTC-08:00)"; anything else as it is. */
export function formatDateTime(iso: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  if (!m) return iso;
  return `${m[1]} ${m[2]} (UTC${m[3] === "Z" ? "" : m[3]})`;
}
