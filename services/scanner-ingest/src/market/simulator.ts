// A deterministic, seeded market simulator: daily bars for every name of the universe, built from a
// market factor (with a slowly switching bull / chop / bear regime), a sector factor, a crypto
// factor and idiosyncratic noise with fat tails, overnight gaps and volume that rises on big moves.
//
// Determinism: every day's shocks come from a hash of (seed, stream, epoch day), and every path is
// accumulated from one fixed origin date, so a bar depends only on (seed, origin, symbol, date),
// never on which dates were asked for first. A name keeps only checkpoints of its path and replays
// bars from them (see "Per-name paths").
//
// Levels (start price, dollar volume, a stock's volatility) are drawn per kind of name from
// plausible ranges, seeded: see "Levels" below. Every figure is simulated, none is real.

import { isTradingDay, sessionAt } from "@board/market-calendar";
import type { ProviderInfo, SectorOrIndex } from "@board/proto";
import type { UniverseEntry } from "../universe.js";
import { fromEpochDay, toEpochDay, utcDateOf, utcDayFraction } from "./days.js";
import type { Bar, MarketDataProvider } from "./provider.js";

export const DEFAULT_SEED = 42;
/** First simulated day. Fixed, so a date's bars never change as time moves on. */
export const DEFAULT_ORIGIN = "2024-01-02";
/** A request further than this past the origin is a bug, not a wish for 300 years of bars. */
const MAX_SPAN_DAYS = 366 * 40;

export type SimulatorOptions = { origin?: string };

// ---------------------------------------------------------------------------------------------
// Hashing and random numbers

function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h >>> 0, s.length);
}

/** Uniform in (0, 1) from a 32-bit hash. */
function unit(h: number): number {
  return (h + 0.5) / 4294967296;
}

const TAG_REGIME = hashString("regime");
const TAG_MARKET = hashString("market");
const TAG_CRYPTO = hashString("crypto");
const TAG_SECTOR = hashString("sector");
const TAG_NAME = hashString("name");
const TAG_INIT = hashString("init");
const TAG_WIGGLE = hashString("wiggle");

/** mulberry32, re-seeded per (stream, day): cheap, and good enough for simulated prices. */
class Rng {
  private s = 0;
  private spare = Number.NaN;

  reset(seed: number): this {
    this.s = seed | 0;
    this.spare = Number.NaN;
    return this;
  }

  /** Uniform in (0, 1). */
  uniform(): number {
    let t = (this.s = (this.s + 0x6d2b79f5) | 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  }

  /** Standard normal (Box-Muller, the second value kept for the next call). */
  normal(): number {
    if (!Number.isNaN(this.spare)) {
      const z = this.spare;
      this.spare = Number.NaN;
      return z;
    }
    const r = Math.sqrt(-2 * Math.log(this.uniform()));
    const a = 2 * Math.PI * this.uniform();
    this.spare = r * Math.sin(a);
    return r * Math.cos(a);
  }

  /**
   * Student-t with 4 degrees of freedom, scaled to unit variance and capped at 10: a normal over the
   * root of a chi-square(4)/4, the chi-square drawn directly as -2 ln(U1 U2) (the sum of the squares
   * of four normals has that law), which costs one logarithm instead of four normals.
   */
  student(): number {
    const z = this.normal();
    const chi = -2 * Math.log(this.uniform() * this.uniform());
    const t = (z / Math.sqrt(chi / 4)) * Math.SQRT1_2;
    return t > 10 ? 10 : t < -10 ? -10 : t;
  }
}

// ---------------------------------------------------------------------------------------------
// Model parameters (the simulator's own; the scoring weights live in scoring/weights.ts)

const BULL = 0;
const CHOP = 1;
const BEAR = 2;
const REGIME_MU = [0.0007, 0.0001, -0.0011];
const REGIME_VOL = [0.0075, 0.0105, 0.0165];
/** Daily chance of leaving each regime: mean stays of about 130, 60 and 45 sessions. */
const REGIME_LEAVE = [1 / 130, 1 / 60, 1 / 45];
/** Where a regime goes when it ends: [first choice, its probability, second choice]. */
const REGIME_NEXT: readonly (readonly [number, number, number])[] = [
  [CHOP, 0.75, BEAR],
  [BULL, 0.6, BEAR],
  [CHOP, 0.55, BULL],
];

const SECTOR_DRIFT_PHI = 0.99;
const SECTOR_DRIFT_SD = 0.0006; // stationary sd of a sector's daily drift (about 15% a year)
const NAME_DRIFT_PHI = 0.995;
const NAME_DRIFT_SD = 0.0009;
/** Volatility clustering: a name's log volatility multiplier follows an AR(1) with this stationary sd. */
const LOGVOL_PHI = 0.95;
const LOGVOL_SD = 0.35;
const DRIFT_INNOV = Math.sqrt(1 - NAME_DRIFT_PHI ** 2);
const LOGVOL_INNOV = Math.sqrt(1 - LOGVOL_PHI ** 2);
const CRYPTO = { driftPhi: 0.99, driftSd: 0.0012, vol: 0.026, marketBeta: 0.6, mu: [0.0004, 0, -0.0008] };
/** Daily pull of a name's log price back towards its start price: keeps levels plausible for years. */
const REVERSION = 0.0015;

/** Fraction of the factor move that happens overnight (the gap), and of idio noise added to it. */
const GAP_FRACTION = 0.3;
const CRYPTO_ETF_GAP_FRACTION = 0.6;
const GAP_NOISE = 0.35;
/** Earnings-like jumps of single stocks: about one a quarter. */
const JUMP_P = 1 / 63;
const JUMP_SD = 0.05;
/** High/low excursion beyond the open-close body, in units of the typical daily move. */
const RANGE = 0.5;
/** Volume multiplier per typical move of |return|, normalised so an average day is near 1. */
const VOLUME_MOVE = 1.5;
const VOLUME_NOISE = 0.3;
/**
 * Shares traded ease as the price moves up from its start (and grow as it falls) by this power of
 * the move, so dollar volume follows only the square root of it: a name that trebles over the years
 * does not treble its dollar volume and outgrow its kind's range.
 */
const VOLUME_PRICE_DAMP = 0.5;

type SectorParams = { beta: number; vol: number; idio: number };

const SECTOR_PARAMS: Record<SectorOrIndex, SectorParams> = {
  Index: { beta: 1, vol: 0, idio: 0.0015 },
  "Information Technology": { beta: 1.15, vol: 0.007, idio: 0.016 },
  Semis: { beta: 1.45, vol: 0.012, idio: 0.022 },
  Software: { beta: 1.25, vol: 0.009, idio: 0.02 },
  "Internet & Media": { beta: 1.2, vol: 0.008, idio: 0.019 },
  "Communication Services": { beta: 0.8, vol: 0.006, idio: 0.014 },
  "Consumer Discretionary": { beta: 1.15, vol: 0.007, idio: 0.018 },
  "Consumer Staples": { beta: 0.55, vol: 0.005, idio: 0.011 },
  "Health Care": { beta: 0.8, vol: 0.006, idio: 0.014 },
  "Biotech & Pharma": { beta: 0.8, vol: 0.008, idio: 0.018 },
  Financials: { beta: 1.1, vol: 0.007, idio: 0.014 },
  Industrials: { beta: 1.05, vol: 0.006, idio: 0.015 },
  Energy: { beta: 0.85, vol: 0.013, idio: 0.016 },
  Materials: { beta: 1.0, vol: 0.008, idio: 0.015 },
  Utilities: { beta: 0.45, vol: 0.007, idio: 0.01 },
  "Real Estate": { beta: 0.85, vol: 0.008, idio: 0.013 },
  Commodities: { beta: 0.3, vol: 0.01, idio: 0.012 },
  "Precious Metals": { beta: 0.1, vol: 0.009, idio: 0.012 },
  Bonds: { beta: -0.05, vol: 0.004, idio: 0.002 },
  Income: { beta: 0.3, vol: 0.003, idio: 0.003 },
  Crypto: { beta: 0, vol: 0, idio: 0.01 },
};

const INDEX_BETA: Record<string, number> = { SPY: 1, QQQ: 1.2, IWM: 1.15, DIA: 0.92, RSP: 1 };
/** Ether's loading on the crypto factor (bitcoin's is 1). */
const ETH_LOAD = 1.15;

// ---------------------------------------------------------------------------------------------
// Levels: start price, dollar volume and (single stocks) daily volatility, drawn per kind.
//
// The kind comes from the universe's data, index membership standing in for size (there are no
// market caps in it): a stock in both the S&P 500 and the Nasdaq-100, or on the short MEGA_CAPS
// list, is a mega cap; one in the S&P 500 only a large cap; one in the Nasdaq-100 only a large
// cap with more volatility (foreign listings, younger growth names); any other stock a mid cap.
// Index ETFs (sector "Index"), the two crypto assets and the biggest fund of a few groups have
// their own ranges per symbol; the equity sector ETFs and the other ETFs (bonds, income,
// commodities, metals, crypto funds) one range each.
//
// Each level is drawn from a bounded bell curve in log space: ln x = ln lo + (ln hi - ln lo) *
// (u1 + u2 + u3) / 3 with three uniforms of a hash of (seed, symbol). So it always lies in [lo, hi],
// its median is the geometric mean of lo and hi, and it is near-log-normal between. Prices then
// wander from the start (market, sector and name moves, pulled back towards the start price), so
// a later board spreads somewhat wider than these ranges. The volume in shares is set so that the
// mean dollar volume at the start price is the drawn figure, and eases as the price rises from
// its start (VOLUME_PRICE_DAMP), so dollar volume wanders less than the price. Factor loadings (beta, sector load)
// are per symbol and do not depend on the seed. All of it is simulated: no real price or volume.
//
// Stocks' daily volatility is drawn too, as the typical day of the chop regime: its own noise is
// what that volatility leaves once market, sector and jumps are counted, and at least IDIO_FLOOR of
// it (bull markets run calmer, bear markets wilder). ETFs, index ETFs and crypto keep the volatility of their factor loadings.
//
//   kind (SimKind)        price          dollar volume a day               daily volatility
//   mega                  $100-$600      $2B-$30B (MEGA_CAPS $8B-$30B,    1.2%-2.0%
//                                        the other ones $2B-$8B)
//   large (S&P 500)       $30-$400       $150M-$3B                        1.5%-2.5%
//   large_ndx (NDX only)  $30-$400       $150M-$3B                        1.8%-3.0%
//   mid (neither index)   $10-$150       $20M-$500M                       2.0%-3.5%
//   sector_etf            $40-$250       $300M-$3B                        loadings: mostly 0.9%-1.5% (semis 2%)
//   other_etf             $20-$250       $20M-$3B                         loadings: bond and income funds about
//                         (IBIT, ETHA, GLD, TLT per symbol)                0.4%, commodities and metals 1%, crypto 3%+
//   index_etf             per symbol (SYMBOL_LEVELS): SPY $500-$700 and    loadings: about 0.8%-1.2%
//                         $25B-$40B, QQQ $400-$600 and $15B-$25B, IWM, DIA, RSP
//   crypto                per symbol: BTC-USD $60k-$110k and $20B-$40B,    loadings: about 2.5%-4%
//                         ETH-USD $2k-$5k and $10B-$20B

export type SimKind = "mega" | "large" | "large_ndx" | "mid" | "sector_etf" | "other_etf" | "index_etf" | "crypto";

type Range = readonly [lo: number, hi: number];
type Levels = { price: Range; adv: Range; vol?: Range };

/** Mega caps by name (only those in the universe count), beside every name in both the S&P 500 and the Nasdaq-100. */
export const MEGA_CAPS: ReadonlySet<string> = new Set([
  "AAPL", "MSFT", "NVDA", "AMZN", "GOOGL", "GOOG", "META", "TSLA", "AVGO", "BRK.B",
  "JPM", "LLY", "V", "MA", "UNH", "XOM", "WMT", "ORCL", "COST", "NFLX",
]);

/** Sector labels whose ETFs are not equity sector funds. */
const NON_EQUITY_SECTORS: ReadonlySet<SectorOrIndex> = new Set(["Bonds", "Income", "Commodities", "Precious Metals", "Crypto"]);

/** Start price, dollar volume a day and (stocks) the day's volatility, by kind; see the table above. */
export const KIND_LEVELS: Readonly<Record<SimKind, Levels>> = {
  mega: { price: [100, 600], adv: [2e9, 3e10], vol: [0.012, 0.02] },
  large: { price: [30, 400], adv: [1.5e8, 3e9], vol: [0.015, 0.025] },
  large_ndx: { price: [30, 400], adv: [1.5e8, 3e9], vol: [0.018, 0.03] },
  mid: { price: [10, 150], adv: [2e7, 5e8], vol: [0.02, 0.035] },
  sector_etf: { price: [40, 250], adv: [3e8, 3e9] },
  other_etf: { price: [20, 250], adv: [2e7, 3e9] },
  // An index ETF or crypto asset not in SYMBOL_LEVELS.
  index_etf: { price: [40, 500], adv: [5e8, 5e9] },
  crypto: { price: [0.5, 500], adv: [2e8, 5e9] },
};
/** The named mega caps draw their dollar volume from the top of the mega range, the others from its foot. */
const MEGA_NAMED_ADV: Range = [8e9, 3e10];
const MEGA_OTHER_ADV: Range = [2e9, 8e9];

/** Per symbol, ahead of its kind's range: the index ETFs, the crypto assets, and the biggest fund of a few groups. */
export const SYMBOL_LEVELS: Readonly<Record<string, Levels>> = {
  SPY: { price: [500, 700], adv: [2.5e10, 4e10] },
  QQQ: { price: [400, 600], adv: [1.5e10, 2.5e10] },
  IWM: { price: [180, 260], adv: [4e9, 8e9] },
  DIA: { price: [380, 480], adv: [1e9, 2.5e9] },
  RSP: { price: [150, 200], adv: [8e8, 2e9] },
  "BTC-USD": { price: [60_000, 110_000], adv: [2e10, 4e10] },
  "ETH-USD": { price: [2_000, 5_000], adv: [1e10, 2e10] },
  IBIT: { price: [30, 65], adv: [1.5e9, 5e9] },
  ETHA: { price: [15, 35], adv: [3e8, 1.5e9] },
  GLD: { price: [180, 320], adv: [1e9, 3e9] },
  TLT: { price: [85, 100], adv: [1e9, 3e9] },
};

/** The simulator's size-and-type kind of a universe entry (see the table above). */
export function simKindOf(entry: Pick<UniverseEntry, "sym" | "books" | "sector" | "kind">): SimKind {
  if (entry.kind === "crypto") return "crypto";
  if (entry.sector === "Index") return "index_etf";
  if (entry.kind === "etf") return NON_EQUITY_SECTORS.has(entry.sector) ? "other_etf" : "sector_etf";
  const spx = entry.books.includes("spx");
  const ndx = entry.books.includes("qqq");
  if (MEGA_CAPS.has(entry.sym) || (spx && ndx)) return "mega";
  if (spx) return "large";
  return ndx ? "large_ndx" : "mid";
}

/** The price, dollar-volume and volatility ranges a name draws from. */
export function levelsOf(entry: Pick<UniverseEntry, "sym" | "books" | "sector" | "kind">): Levels {
  const kind = simKindOf(entry);
  const levels = { ...KIND_LEVELS[kind], ...SYMBOL_LEVELS[entry.sym] };
  if (kind === "mega" && SYMBOL_LEVELS[entry.sym] === undefined) levels.adv = MEGA_CAPS.has(entry.sym) ? MEGA_NAMED_ADV : MEGA_OTHER_ADV;
  return levels;
}

/** A bounded bell curve in log space over [lo, hi] (the mean of three uniforms); its median is sqrt(lo hi). */
function logBell([lo, hi]: Range, u: (k: number) => number, k: number): number {
  return Math.exp(Math.log(lo) + Math.log(hi / lo) * ((u(k) + u(k + 1) + u(k + 2)) / 3));
}

/** Variance a single stock's earnings-like jumps add to a day (the t draw has unit variance). */
const JUMP_VAR = JUMP_P * JUMP_SD * JUMP_SD;
/** The mean square of the clustering multiplier on idiosyncratic noise, exp(LOGVOL_SD^2). */
const LOGVOL_MEAN_SQUARE = Math.exp(LOGVOL_SD * LOGVOL_SD);
/** However much of a stock's volatility its factors explain, its own noise keeps at least this share of it. */
const IDIO_FLOOR = 0.35;
/** Mean of the volume noise exp(VOLUME_NOISE z), taken out of the share count so dollar volume averages the draw. */
const VOLUME_NOISE_MEAN = Math.exp((VOLUME_NOISE * VOLUME_NOISE) / 2);

const TAG_LEVELS = hashString("levels");

type NameParams = {
  sym: string;
  calendar: "trading" | "calendar";
  sector: SectorOrIndex;
  beta: number;
  load: number;
  idio: number;
  driftSd: number;
  gapFraction: number;
  jumpP: number;
  dayVol: number;
  startPrice: number;
  baseShares: number;
};

function paramsOf(entry: UniverseEntry, seedHash: number): NameParams {
  // Loadings from the symbol alone; levels from (seed, symbol).
  const h = hashString(entry.sym);
  const u = (k: number) => unit(mix(h, k));
  const hl = mix(mix(seedHash, TAG_LEVELS), h);
  const ul = (k: number) => unit(mix(hl, k));
  const sp = SECTOR_PARAMS[entry.sector];
  const between = (lo: number, hi: number, k: number) => lo + (hi - lo) * u(k);
  const levels = levelsOf(entry);
  let beta: number;
  let load: number;
  let idio: number;
  let driftSd: number;
  if (entry.kind === "crypto") {
    beta = 0;
    load = entry.sym === "BTC-USD" ? 1 : ETH_LOAD;
    idio = entry.sym === "BTC-USD" ? 0.002 : 0.018;
    driftSd = entry.sym === "BTC-USD" ? 0 : NAME_DRIFT_SD;
  } else if (entry.sector === "Index") {
    beta = INDEX_BETA[entry.sym] ?? between(0.9, 1.2, 1);
    load = 0;
    idio = sp.idio;
    driftSd = 0.0001;
  } else if (entry.kind === "etf") {
    beta = sp.beta * between(0.9, 1.1, 1);
    // Crypto ETFs carry the crypto factor: the bitcoin one at 1, the ether one at ether's loading.
    if (entry.sector === "Crypto") load = entry.sym === "IBIT" ? 1 : ETH_LOAD;
    else load = between(0.8, 1.25, 2);
    idio = sp.idio * 0.35;
    driftSd = NAME_DRIFT_SD * 0.25;
  } else {
    beta = sp.beta * between(0.7, 1.3, 1);
    load = between(0.6, 1.4, 2);
    // The stock's own noise is what its drawn volatility leaves once the market, its sector and its
    // jumps are counted (at the chop regime's market volatility), and never less than IDIO_FLOOR of it.
    const target = logBell(levels.vol ?? KIND_LEVELS.large.vol!, ul, 7);
    const factorVar = (beta * REGIME_VOL[CHOP]!) ** 2 + (load * sp.vol) ** 2;
    idio = Math.max(IDIO_FLOOR * target, Math.sqrt(Math.max(0, target * target - factorVar - JUMP_VAR) / LOGVOL_MEAN_SQUARE));
    driftSd = NAME_DRIFT_SD;
  }
  const startPrice = logBell(levels.price, ul, 1);
  const dollarAdv = logBell(levels.adv, ul, 4);
  const crypto = entry.sector === "Crypto";
  const factorVol = crypto ? CRYPTO.vol : Math.hypot(beta * REGIME_VOL[CHOP]!, load * sp.vol);
  return {
    sym: entry.sym,
    calendar: entry.kind === "crypto" ? "calendar" : "trading",
    sector: entry.sector,
    beta,
    load,
    idio,
    driftSd,
    gapFraction: crypto ? CRYPTO_ETF_GAP_FRACTION : GAP_FRACTION,
    jumpP: entry.kind === "stock" ? JUMP_P : 0,
    dayVol: Math.hypot(factorVol * (crypto ? load : 1), idio),
    startPrice,
    baseShares: dollarAdv / startPrice / VOLUME_NOISE_MEAN,
  };
}

// ---------------------------------------------------------------------------------------------
// Shared paths: the calendar, the market regime and factor, sector factors, the crypto factor

class Timeline {
  readonly tradingDays: number[] = [];
  readonly tradingDates: string[] = [];
  readonly calendarDates: string[] = [];
  /** Per calendar index: trading days on or before that day. */
  readonly tradingThrough: number[] = [];
  /** Per calendar index: that day's trading index, or -1. */
  readonly tradingIndexOf: number[] = [];

  constructor(readonly origin: number) {}

  extendTo(day: number): void {
    if (day - this.origin > MAX_SPAN_DAYS) throw new RangeError(`simulator: ${fromEpochDay(day)} is too far past the origin`);
    for (let d = this.origin + this.calendarDates.length; d <= day; d++) {
      const date = fromEpochDay(d);
      this.calendarDates.push(date);
      if (isTradingDay(date)) {
        this.tradingIndexOf.push(this.tradingDays.length);
        this.tradingDays.push(d);
        this.tradingDates.push(date);
      } else {
        this.tradingIndexOf.push(-1);
      }
      this.tradingThrough.push(this.tradingDays.length);
    }
  }
}

class Factors {
  readonly regime: number[] = [];
  readonly market: number[] = [];
  readonly crypto: number[] = [];
  readonly sector = new Map<SectorOrIndex, number[]>();
  readonly #sectorDrift = new Map<SectorOrIndex, number>();
  #cryptoDrift: number;
  #cryptoLogVol = 0;
  readonly #initialRegime: number;
  readonly #rng = new Rng();

  constructor(
    private readonly tl: Timeline,
    private readonly seedHash: number,
  ) {
    const u = unit(mix(seedHash, TAG_REGIME));
    this.#initialRegime = u < 0.55 ? BULL : u < 0.85 ? CHOP : BEAR;
    this.#cryptoDrift = this.#rng.reset(mix(seedHash, TAG_CRYPTO ^ TAG_INIT)).normal() * CRYPTO.driftSd;
  }

  /** Market regime in force on calendar index j (the last session's; the initial one before any). */
  regimeAtCalendar(j: number): number {
    const n = this.tl.tradingThrough[j] ?? 0;
    return n === 0 ? this.#initialRegime : (this.regime[n - 1] ?? this.#initialRegime);
  }

  extend(): void {
    const { tl } = this;
    const rng = this.#rng;
    for (let i = this.market.length; i < tl.tradingDays.length; i++) {
      rng.reset(mix(mix(this.seedHash, TAG_MARKET), tl.tradingDays[i]!));
      const prev = i === 0 ? this.#initialRegime : this.regime[i - 1]!;
      let reg = prev;
      if (rng.uniform() < REGIME_LEAVE[prev]!) {
        const [first, p, second] = REGIME_NEXT[prev]!;
        reg = rng.uniform() < p ? first : second;
      }
      this.regime.push(reg);
      this.market.push(REGIME_MU[reg]! + REGIME_VOL[reg]! * rng.student());
    }
    for (let j = this.crypto.length; j < tl.calendarDates.length; j++) {
      rng.reset(mix(mix(this.seedHash, TAG_CRYPTO), tl.origin + j));
      this.#cryptoDrift = CRYPTO.driftPhi * this.#cryptoDrift + CRYPTO.driftSd * Math.sqrt(1 - CRYPTO.driftPhi ** 2) * rng.normal();
      const ti = tl.tradingIndexOf[j]!;
      const m = ti >= 0 ? CRYPTO.marketBeta * this.market[ti]! : 0;
      this.#cryptoLogVol = LOGVOL_PHI * this.#cryptoLogVol + LOGVOL_SD * LOGVOL_INNOV * rng.normal();
      const vol = CRYPTO.vol * Math.exp(this.#cryptoLogVol - (LOGVOL_SD * LOGVOL_SD) / 2);
      this.crypto.push(this.#cryptoDrift + CRYPTO.mu[this.regimeAtCalendar(j)]! + m + vol * rng.student());
    }
  }

  /** The sector factor's return series (trading days), extended to the timeline. */
  sectorReturns(sector: SectorOrIndex): number[] {
    let series = this.sector.get(sector);
    if (!series) {
      series = [];
      this.sector.set(sector, series);
    }
    const n = this.tl.tradingDays.length;
    if (series.length >= n) return series;
    const rng = this.#rng;
    const sh = mix(mix(this.seedHash, TAG_SECTOR), hashString(sector));
    if (sector === "Crypto") {
      // A crypto ETF carries the crypto factor of every calendar day since the previous session.
      for (let i = series.length; i < n; i++) {
        const to = this.tl.tradingDays[i]! - this.tl.origin;
        const from = i === 0 ? to : this.tl.tradingDays[i - 1]! - this.tl.origin + 1;
        let sum = 0;
        for (let j = from; j <= to; j++) sum += this.crypto[j]!;
        series.push(sum);
      }
      return series;
    }
    const { vol } = SECTOR_PARAMS[sector];
    let drift = this.#sectorDrift.get(sector) ?? rng.reset(mix(sh, TAG_INIT)).normal() * SECTOR_DRIFT_SD;
    const innov = SECTOR_DRIFT_SD * Math.sqrt(1 - SECTOR_DRIFT_PHI ** 2);
    for (let i = series.length; i < n; i++) {
      rng.reset(mix(sh, this.tl.tradingDays[i]!));
      drift = SECTOR_DRIFT_PHI * drift + innov * rng.normal();
      series.push(vol === 0 ? 0 : drift + vol * rng.student());
    }
    this.#sectorDrift.set(sector, drift);
    return series;
  }
}

// ---------------------------------------------------------------------------------------------
// Per-name paths
//
// A name keeps no bars: only the state of its path (drift, log volatility, last close) before every
// CHECKPOINT_EVERY-th bar. A read replays the bars it wants from the nearest saved state before
// them; a day's draws come from its own hash, so the replay gives the same bars to the last bit.
// Memory stays at a few hundred bytes a name however long the history grows (bars held as arrays
// were ~22 MB for the universe's two years); a scan's read of 340 bars replays at most 31 more.

/** Bars between two saved states of a path: a read computes at most this many - 1 bars it does not return. */
const CHECKPOINT_EVERY = 32;

/** Where a name's path stands, and the last bar it made. */
class PathState {
  open = 0;
  high = 0;
  low = 0;
  /** The last bar's close; NaN before the first bar. */
  close = Number.NaN;
  volume = 0;

  constructor(
    public drift: number,
    public logVol: number,
    close: number,
  ) {
    this.close = close;
  }

  /** Advances drift and log volatility by one day; returns the day's volatility multiplier. */
  step(rng: Rng, p: NameParams): number {
    this.drift = NAME_DRIFT_PHI * this.drift + p.driftSd * DRIFT_INNOV * rng.normal();
    this.logVol = LOGVOL_PHI * this.logVol + LOGVOL_SD * LOGVOL_INNOV * rng.normal();
    return Math.exp(this.logVol - (LOGVOL_SD * LOGVOL_SD) / 2);
  }

  /** Today's pull back towards the start price. */
  pull(p: NameParams): number {
    return Number.isNaN(this.close) ? 0 : -REVERSION * Math.log(this.close / p.startPrice);
  }

  /** Makes the day's bar from its return r, its gap and its typical move. */
  bar(p: NameParams, rng: Rng, r: number, gap: number, typical: number): void {
    const prev = Number.isNaN(this.close) ? p.startPrice : this.close;
    const open = prev * Math.exp(gap);
    const close = prev * Math.exp(r);
    this.open = open;
    this.close = close;
    this.high = Math.max(open, close) * Math.exp(RANGE * typical * Math.abs(rng.normal()));
    this.low = Math.min(open, close) * Math.exp(-RANGE * typical * Math.abs(rng.normal()));
    const activity = (1 + (VOLUME_MOVE * Math.abs(r)) / typical) / (1 + VOLUME_MOVE * 0.8);
    const shares = p.baseShares * (p.startPrice / prev) ** VOLUME_PRICE_DAMP;
    this.volume = Math.max(1, Math.round(shares * Math.exp(VOLUME_NOISE * rng.normal()) * activity));
  }
}

class Series {
  readonly hash: number;
  /** The state before bar k * CHECKPOINT_EVERY, as [drift, logVol, close] triples, k = 0, 1, ... */
  readonly #saved: number[] = [];

  constructor(
    readonly p: NameParams,
    seedHash: number,
  ) {
    this.hash = mix(mix(seedHash, TAG_NAME), hashString(p.sym));
    const rng = new Rng().reset(mix(this.hash, TAG_INIT));
    const drift = rng.normal() * p.driftSd;
    const logVol = rng.normal() * LOGVOL_SD;
    this.#saved.push(drift, logVol, Number.NaN);
  }

  /** How many bars the saved states reach: bar index of the last one. */
  get savedThrough(): number {
    return (this.#saved.length / 3 - 1) * CHECKPOINT_EVERY;
  }

  /** The saved state before bar k * CHECKPOINT_EVERY, as a fresh copy to replay from. */
  stateAt(k: number): PathState {
    const a = this.#saved;
    return new PathState(a[3 * k]!, a[3 * k + 1]!, a[3 * k + 2]!);
  }

  /** Saves the state before bar `index` when it is the next checkpoint due. */
  saveBefore(index: number, st: PathState): void {
    if (index === this.savedThrough + CHECKPOINT_EVERY) this.#saved.push(st.drift, st.logVol, st.close);
  }
}

// ---------------------------------------------------------------------------------------------

export class MarketSimulator implements MarketDataProvider {
  readonly seed: number;
  readonly origin: string;
  readonly info: ProviderInfo;
  readonly intraday = true;
  readonly #originDay: number;
  readonly #seedHash: number;
  readonly #tl: Timeline;
  readonly #factors: Factors;
  readonly #params = new Map<string, NameParams>();
  readonly #series = new Map<string, Series>();
  readonly #rng = new Rng();

  constructor(entries: readonly UniverseEntry[], seed: number = DEFAULT_SEED, options: SimulatorOptions = {}) {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`simulator: seed must be an integer, got ${seed}`);
    this.seed = seed;
    this.origin = options.origin ?? DEFAULT_ORIGIN;
    this.#originDay = toEpochDay(this.origin);
    this.#seedHash = mix(mix(0x5eed, seed | 0), Math.floor(seed / 4294967296));
    this.#tl = new Timeline(this.#originDay);
    this.#factors = new Factors(this.#tl, this.#seedHash);
    for (const e of entries) this.#params.set(e.sym, paramsOf(e, this.#seedHash));
    this.info = {
      name: "simulator",
      detail: `seeded market simulator (seed ${seed}, history from ${this.origin}); not real prices`,
      simulated: true,
      delay: "simulated",
    };
  }

  async dailyBars(sym: string, through: string, count: number): Promise<Bar[]> {
    return this.dailyBarsSync(sym, through, count);
  }

  async intradayBar(sym: string, at: Date): Promise<Bar | null> {
    return this.intradayBarSync(sym, at);
  }

  /** dailyBars without the promise. */
  dailyBarsSync(sym: string, through: string, count: number): Bar[] {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`simulator: count must be a non-negative integer, got ${count}`);
    const series = this.#seriesOf(sym);
    const day = toEpochDay(through);
    if (day < this.#originDay) return [];
    const end = this.#endOf(series, day);
    const dates = series.p.calendar === "calendar" ? this.#tl.calendarDates : this.#tl.tradingDates;
    return this.#replay(series, Math.max(0, end - count), end, dates);
  }

  /**
   * The partial bar at `at`: it opens at the day's open, and its last price follows the log path from
   * the open to the day's close by the elapsed fraction of the session (crypto: of the UTC day), plus
   * a deterministic Brownian-bridge wiggle that vanishes at both ends, kept inside the day's range.
   */
  intradayBarSync(sym: string, at: Date): Bar | null {
    const series = this.#seriesOf(sym);
    let date: string;
    let f: number;
    if (series.p.calendar === "calendar") {
      date = utcDateOf(at);
      f = utcDayFraction(at);
    } else {
      const session = sessionAt(at);
      if (session === null) return null;
      date = session.date;
      f = (at.getTime() - session.open.getTime()) / (session.close.getTime() - session.open.getTime());
    }
    const full = this.dailyBarsSync(sym, date, 1)[0];
    if (full === undefined || full.date !== date) return null;
    const bucket = Math.floor(f * 288); // five-minute steps of a day
    const z = this.#rng.reset(mix(mix(series.hash, TAG_WIGGLE), toEpochDay(date) * 288 + bucket)).normal();
    const lnO = Math.log(full.open);
    const lnC = Math.log(full.close);
    const wiggle = 0.5 * Math.log(full.high / full.low) * Math.sqrt(f * (1 - f)) * z;
    const last = Math.min(full.high, Math.max(full.low, Math.exp(lnO + f * (lnC - lnO) + wiggle)));
    const sf = Math.sqrt(f);
    const top = Math.max(full.open, last);
    const bottom = Math.min(full.open, last);
    return {
      date,
      open: full.open,
      high: Math.min(full.high, Math.max(top, top * (full.high / Math.max(full.open, full.close)) ** sf)),
      low: Math.max(full.low, Math.min(bottom, bottom * (full.low / Math.min(full.open, full.close)) ** sf)),
      close: last,
      volume: Math.max(1, Math.round(full.volume * Math.max(f, 0.005))),
    };
  }

  /** Saves every symbol's checkpoints through `through`, so later reads replay only their own window. */
  warm(through: string): void {
    const day = toEpochDay(through);
    if (day < this.#originDay) return;
    for (const sym of this.#params.keys()) {
      const s = this.#seriesOf(sym);
      const end = this.#endOf(s, day);
      this.#replay(s, end, end, null);
    }
  }

  /** True when the simulator knows the symbol. */
  has(sym: string): boolean {
    return this.#params.has(sym);
  }

  #seriesOf(sym: string): Series {
    let s = this.#series.get(sym);
    if (s) return s;
    const p = this.#params.get(sym);
    if (!p) throw new RangeError(`simulator: unknown symbol "${sym}"`);
    s = new Series(p, this.#seedHash);
    this.#series.set(sym, s);
    return s;
  }

  /** How many of `s`'s bars fall on or before epoch day `day` (extending the shared paths that far). */
  #endOf(s: Series, day: number): number {
    const tl = this.#tl;
    tl.extendTo(day);
    this.#factors.extend();
    const j = day - this.#originDay;
    return s.p.calendar === "calendar" ? j + 1 : tl.tradingThrough[j]!;
  }

  /**
   * Replays `s` from its last checkpoint at or before bar `from` up to bar `end` (exclusive), saving
   * checkpoints it passes, and returns bars from..end-1 dated by `dates` (none when `dates` is null).
   */
  #replay(s: Series, from: number, end: number, dates: readonly string[] | null): Bar[] {
    const { p } = s;
    const tl = this.#tl;
    const f = this.#factors;
    const rng = this.#rng;
    const k = Math.floor(Math.min(from, s.savedThrough) / CHECKPOINT_EVERY);
    const st = s.stateAt(k);
    const out: Bar[] = [];
    const calendar = p.calendar === "calendar";
    const sector = calendar || p.load === 0 ? null : f.sectorReturns(p.sector);
    for (let i = k * CHECKPOINT_EVERY; i < end; i++) {
      if (i % CHECKPOINT_EVERY === 0) s.saveBefore(i, st);
      if (calendar) {
        rng.reset(mix(s.hash, tl.origin + i));
        const volMult = Math.sqrt(REGIME_VOL[f.regimeAtCalendar(i)]! / REGIME_VOL[CHOP]!) * st.step(rng, p);
        const r = p.load * f.crypto[i]! + st.drift + p.idio * volMult * rng.student() + st.pull(p);
        st.bar(p, rng, r, 0, p.dayVol * volMult);
      } else {
        rng.reset(mix(s.hash, tl.tradingDays[i]!));
        const volMult = (REGIME_VOL[f.regime[i]!]! / REGIME_VOL[CHOP]!) * st.step(rng, p);
        const factor = p.beta * f.market[i]! + (sector ? p.load * sector[i]! : 0);
        const eps = rng.student();
        const jump = p.jumpP > 0 && rng.uniform() < p.jumpP ? JUMP_SD * rng.student() : 0;
        const r = factor + st.drift + p.idio * volMult * eps + jump + st.pull(p);
        const gap = p.gapFraction * factor + GAP_NOISE * p.idio * rng.normal() + jump;
        st.bar(p, rng, r, gap, p.dayVol * volMult);
      }
      if (dates !== null && i >= from) out.push({ date: dates[i]!, open: st.open, high: st.high, low: st.low, close: st.close, volume: st.volume });
    }
    return out;
  }
}
