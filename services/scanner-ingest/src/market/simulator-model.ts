// The simulator's model parameters (its own; the scoring weights live in scoring/weights.ts): the
// market regimes, drifts, volatility clustering, gaps, jumps, volume, and each sector's loadings.

import type { SectorOrIndex } from "@board/proto";

export const BULL = 0;
export const CHOP = 1;
export const BEAR = 2;
export const REGIME_MU = [0.0007, 0.0001, -0.0011];
export const REGIME_VOL = [0.0075, 0.0105, 0.0165];
/** Daily chance of leaving each regime: mean stays of about 130, 60 and 45 sessions. */
export const REGIME_LEAVE = [1 / 130, 1 / 60, 1 / 45];
/** Where a regime goes when it ends: [first choice, its probability, second choice]. */
export const REGIME_NEXT: readonly (readonly [number, number, number])[] = [
  [CHOP, 0.75, BEAR],
  [BULL, 0.6, BEAR],
  [CHOP, 0.55, BULL],
];

export const SECTOR_DRIFT_PHI = 0.99;
export const SECTOR_DRIFT_SD = 0.0006; // stationary sd of a sector's daily drift (about 15% a year)
export const NAME_DRIFT_PHI = 0.995;
export const NAME_DRIFT_SD = 0.0009;
/** Volatility clustering: a name's log volatility multiplier follows an AR(1) with this stationary sd. */
export const LOGVOL_PHI = 0.95;
export const LOGVOL_SD = 0.35;
export const DRIFT_INNOV = Math.sqrt(1 - NAME_DRIFT_PHI ** 2);
export const LOGVOL_INNOV = Math.sqrt(1 - LOGVOL_PHI ** 2);
export const CRYPTO = { driftPhi: 0.99, driftSd: 0.0012, vol: 0.026, marketBeta: 0.6, mu: [0.0004, 0, -0.0008] };
/** Daily pull of a name's log price back towards its start price: keeps levels plausible for years. */
export const REVERSION = 0.0015;

/** Fraction of the factor move that happens overnight (the gap), and of idio noise added to it. */
export const GAP_FRACTION = 0.3;
export const CRYPTO_ETF_GAP_FRACTION = 0.6;
export const GAP_NOISE = 0.35;
/** Earnings-like jumps of single stocks: about one a quarter. */
export const JUMP_P = 1 / 63;
export const JUMP_SD = 0.05;
/** High/low excursion beyond the open-close body, in units of the typical daily move. */
export const RANGE = 0.5;
/** Volume multiplier per typical move of |return|, normalised so an average day is near 1. */
export const VOLUME_MOVE = 1.5;
export const VOLUME_NOISE = 0.3;
/**
 * Shares traded ease as the price moves up from its start (and grow as it falls) by this power of
 * the move, so dollar volume follows only the square root of it: a name that trebles over the years
 * does not treble its dollar volume and outgrow its kind's range.
 */
export const VOLUME_PRICE_DAMP = 0.5;

export type SectorParams = { beta: number; vol: number; idio: number };

export const SECTOR_PARAMS: Record<SectorOrIndex, SectorParams> = {
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

export const INDEX_BETA: Record<string, number> = { SPY: 1, QQQ: 1.2, IWM: 1.15, DIA: 0.92, RSP: 1 };
/** Ether's loading on the crypto factor (bitcoin's is 1). */
export const ETH_LOAD = 1.15;
