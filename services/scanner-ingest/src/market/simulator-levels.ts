import type { SectorOrIndex } from "@board/proto";
import type { UniverseEntry } from "../universe.js";
import { hashString, mix, unit } from "./simulator-random.js";
import {
  CHOP,
  CRYPTO,
  CRYPTO_ETF_GAP_FRACTION,
  ETH_LOAD,
  GAP_FRACTION,
  INDEX_BETA,
  JUMP_P,
  JUMP_SD,
  LOGVOL_SD,
  NAME_DRIFT_SD,
  REGIME_VOL,
  SECTOR_PARAMS,
  VOLUME_NOISE,
} from "./simulator-model.js";

// Levels: start price, dollar volume and (single stocks) daily volatility, drawn per kind, and the
// parameters of each name's path drawn from them.
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

export type NameParams = {
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

export function paramsOf(entry: UniverseEntry, seedHash: number): NameParams {
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
