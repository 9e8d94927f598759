// Series arithmetic on plain arrays: moving averages, Wilder's ATR, window extremes, regression.
// Windows that reach before the first bar shrink to what exists, so short histories still score.

/** Prefix sums: sum of xs[from..to] in O(1). */
export class PrefixSum {
  readonly #acc: Float64Array;

  constructor(xs: readonly number[]) {
    this.#acc = new Float64Array(xs.length + 1);
    for (let i = 0; i < xs.length; i++) this.#acc[i + 1] = this.#acc[i]! + xs[i]!;
  }

  /** Mean of the `n` values ending at index `end` (fewer when the series starts later). */
  meanAt(end: number, n: number): number {
    const from = Math.max(0, end - n + 1);
    return (this.#acc[end + 1]! - this.#acc[from]!) / (end - from + 1);
  }
}

/** Exponential moving average, seeded with the first value. */
export function emaSeries(xs: readonly number[], n: number): number[] {
  const k = 2 / (n + 1);
  const out = new Array<number>(xs.length);
  let e = xs[0] ?? Number.NaN;
  for (let i = 0; i < xs.length; i++) {
    e = i === 0 ? xs[0]! : e + k * (xs[i]! - e);
    out[i] = e;
  }
  return out;
}

/** True range per bar; the first bar's is its high - low. */
export function trueRanges(high: readonly number[], low: readonly number[], close: readonly number[]): number[] {
  const out = new Array<number>(close.length);
  for (let i = 0; i < close.length; i++) {
    const hl = high[i]! - low[i]!;
    out[i] = i === 0 ? hl : Math.max(hl, Math.abs(high[i]! - close[i - 1]!), Math.abs(low[i]! - close[i - 1]!));
  }
  return out;
}

/** Wilder's average true range: the mean of the first n true ranges, then (prev (n-1) + tr) / n. */
export function wilderAtrSeries(tr: readonly number[], n: number): number[] {
  const out = new Array<number>(tr.length);
  let sum = 0;
  let atr = Number.NaN;
  for (let i = 0; i < tr.length; i++) {
    if (i < n) {
      sum += tr[i]!;
      atr = sum / (i + 1);
    } else {
      atr = (atr * (n - 1) + tr[i]!) / n;
    }
    out[i] = atr;
  }
  return out;
}

/** Highest value of xs over the `n` bars ending at `end`. */
export function maxOver(xs: readonly number[], end: number, n: number): number {
  let m = -Infinity;
  for (let i = Math.max(0, end - n + 1); i <= end; i++) if (xs[i]! > m) m = xs[i]!;
  return m;
}

/**
 * Rolling extreme of xs over the `n` bars ending at each index (fewer at the start), in one pass
 * with a monotonic queue: out[e] === maxOver(xs, e, n) (or minOver with `sign` -1).
 */
export function rollingExtreme(xs: readonly number[], n: number, sign: 1 | -1): number[] {
  const out = new Array<number>(xs.length);
  const q = new Int32Array(xs.length);
  let head = 0;
  let tail = 0;
  for (let i = 0; i < xs.length; i++) {
    const v = sign * xs[i]!;
    while (tail > head && sign * xs[q[tail - 1]!]! <= v) tail--;
    q[tail++] = i;
    if (q[head]! <= i - n) head++;
    out[i] = xs[q[head]!]!;
  }
  return out;
}

/** Lowest value of xs over the `n` bars ending at `end`. */
export function minOver(xs: readonly number[], end: number, n: number): number {
  let m = Infinity;
  for (let i = Math.max(0, end - n + 1); i <= end; i++) if (xs[i]! < m) m = xs[i]!;
  return m;
}

/** Return over `n` bars ending at `end`: C(end) / C(end - n) - 1, from the first bar when shorter. */
export function returnOver(close: readonly number[], end: number, n: number): number {
  return close[end]! / close[Math.max(0, end - n)]! - 1;
}

/** Least-squares line through ln(close) over the `n` bars ending at `end`: slope per bar and R squared. */
export function logRegression(close: readonly number[], end: number, n: number): { slope: number; r2: number } {
  const from = Math.max(0, end - n + 1);
  const m = end - from + 1;
  if (m < 3) return { slope: 0, r2: 0 };
  let sx = 0;
  let sy = 0;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = from; i <= end; i++) {
    const x = i - from;
    const y = Math.log(close[i]!);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    syy += y * y;
  }
  const vx = m * sxx - sx * sx;
  const vy = m * syy - sy * sy;
  const cov = m * sxy - sx * sy;
  const slope = cov / vx;
  const r2 = vy <= 0 ? 0 : (cov * cov) / (vx * vy);
  return { slope, r2 };
}

/** The q-quantile (0..1) of xs by linear interpolation; NaN when empty. Sorts a copy. */
export function quantile(xs: readonly number[], q: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  const pos = q * (s.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(s.length - 1, lo + 1);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}
