// Every weight, window and threshold of the scoring, in one place (SCORING.md). The rules read
// these names; change a number here and every rule and test follows.

/**
 * Bars of history the scanner asks for per name. The regime hysteresis reads the last
 * REGIME.window (120) completed closes, the earliest of which needs a full SMA200 and the SMA200 20
 * bars before it: 120 + 199 + 20 = 339 completed bars, plus today's partial bar intraday. The
 * 252-day high/low, r252 and the gap window need 253. With fewer, windows shrink to the bars that exist.
 */
export const HISTORY_BARS = 340;

export const WINDOWS = {
  sma20: 20,
  sma50: 50,
  sma150: 150,
  sma200: 200,
  ema21: 21,
  atr: 14,
  atrShort: 10,
  atrLong: 50,
  atrChandelier: 22,
  highLow: 252,
  r63: 63,
  r126: 126,
  r189: 189,
  r252: 252,
  /** "SMA50 falling over 10 days" (FALLING). */
  sma50Slope: 10,
  /** "SMA200 above its value 21 days ago" (trend template). */
  sma200SlopeTT: 21,
  /** "SMA200 rising over 20 days" (hold strength, regime). */
  sma200Slope: 20,
  breakoutLookback: 20,
  volumeAvg: 20,
  volumeShort: 10,
  volumeLong: 50,
  tightRange: 20,
  reclaimLookback: 10,
  regression: 90,
  gapLookback: 252,
  adv: 20,
  leaderRelative: 50,
} as const;

/** Relative strength (IBD-style): RS = 0.4 r63 + 0.2 r126 + 0.2 r189 + 0.2 r252. */
export const RS_WEIGHTS = { r63: 0.4, r126: 0.2, r189: 0.2, r252: 0.2 } as const;

/**
 * Opportunity score: 100 x (rs rs_pct/99 + trend TT/8 + nearHigh pct(C/H252)/99 +
 * sectorRel pct(r63 - r63 of the reference)/99 + entry entry_q/100). Weights sum to 1. The reference
 * is the name's sector ETF; for a sector ETF itself, an Index-labelled name or a crypto asset it is
 * its first book's index (SPY, QQQ, BTC-USD).
 */
export const OPP_WEIGHTS = { rs: 0.35, trend: 0.2, nearHigh: 0.15, sectorRel: 0.15, entry: 0.15 } as const;

/** Trend template (SCORING.md): the eight rules and their constants. */
export const TREND_TEMPLATE = {
  aboveLow: 1.3, // C >= 1.3 L252
  nearHigh: 0.75, // C >= 0.75 H252
  rsPct: 70, // rs_pct >= 70
} as const;

/** Entry-state rules, first match wins. */
export const STATE = {
  chaseAtr: 2.5, // (C - SMA20) / ATR above this is CHASE
  readyMinTT: 6,
  setupMinTT: 5,
  pullbackLowAtr: -0.5, // C within -0.5..+1.5 ATR of EMA21
  pullbackHighAtr: 1.5,
  breakoutVolume: 1.5, // volume >= 1.5 x its 20-day average
  tightAtrRatio: 0.8, // ATR10 / ATR50 below this is tight
  tightRangeAtr: 3, // or the 20-day range below 3 ATR
} as const;

/**
 * Sessions of state history each name is scored over (per book): the light, the trigger and
 * days_in_state read them. A READY run longer than this with no trigger inside it has none, and
 * days_in_state stops counting here (64 means 64 or more).
 */
export const STATE_HISTORY_BARS = 64;

/** Entry quality: the distance from EMA21 is scaled by this many ATRs. */
export const ENTRY_Q = { emaAtr: 3 } as const;

/** Hold strength points (sum 100) and the chandelier stop. */
export const HOLD = {
  aboveSma50: 25,
  sma50AboveSma200: 25,
  aboveChandelier: 20,
  rs: 15,
  sma200Rising: 15,
  chandelierAtr: 3,
} as const;

/** hold_label: the lowest score of each label, best first. */
export const HOLD_LABELS = [
  { min: 80, label: "STRONG" },
  { min: 60, label: "HOLD" },
  { min: 40, label: "WEAKENING" },
  { min: 20, label: "TRIM" },
  { min: 0, label: "EXIT" },
] as const;

/** Leadership: rs_pct and nearness to the 252-day high. */
export const LEADER = { rsPct: 80, nearHigh: 0.85 } as const;

/** Liquidity tiers by adv20_usd, best first; D is everything below C. */
export const LIQUIDITY = [
  { min: 500e6, tier: "A" },
  { min: 100e6, tier: "B" },
  { min: 20e6, tier: "C" },
  { min: 0, tier: "D" },
] as const;

/** Trading days (crypto: calendar days) per year, to annualise the growth slope. */
export const YEAR_BARS = { equity: 252, crypto: 365 } as const;
/** The tail of the overnight-gap distribution that gap risk reads. */
export const GAP_QUANTILE = 0.95;

/** Regime verdict thresholds (breadth in percent) and the hysteresis. */
export const REGIME = {
  indexOnlyBelowB50: 40,
  sectorsOnBelowB50: 50,
  namesOnMinB50: 60,
  namesOnMinB200: 55,
  selectiveTopSectors: 5,
  sectorRsWindow: 63,
  /** Completed daily closes the hysteresis state machine runs over (the oldest sets the start). */
  window: 120,
  /** Consecutive closes that must agree before a verdict (or a crypto trend) changes. */
  confirmCloses: 2,
  /** Equity books: band around the 200-day average; a close inside it keeps the index's side. */
  band200: 0.01,
  /** Crypto book: band around the 50-day average, against whipsaw (UTC daily close). */
  cryptoBand: 0.02,
} as const;

/** The engine's selections (BoardSignals): how many names each list keeps. */
export const SIGNALS = {
  leaders: 10,
  movers: 10,
  topVolume: 5,
} as const;

/** crypto_night: change since the last US close, in percent. */
export const CRYPTO_NIGHT = {
  /** Risk-on when both assets are up more than this. */
  riskOnAbovePct: 1,
  /** Risk-off when either asset is down more than this (below -2%). */
  riskOffBelowPct: -2,
} as const;

/**
 * tradfi_risk: the macro groups (only symbols in the universe are read) and how a group's read
 * follows from its members. A member is up when C > SMA50 and its state is not FALLING, down when
 * its state is FALLING. Supportive when at least `supportiveShare` of the members are up, stressed
 * when at least `stressedShare` are down, neutral otherwise.
 */
export const TRADFI = {
  groups: {
    bonds: ["TLT", "IEF", "SHY", "AGG", "TIP"],
    credit: ["HYG", "LQD", "EMB", "PFF"],
    gold: ["GLD", "SLV", "GDX"],
    dollar_sensitive: ["DBC", "USO", "UNG", "DBA"],
  },
  supportiveShare: 0.6,
  stressedShare: 0.5,
} as const;

/** Lanes: who may enter and how they are ranked and sized. */
export const LANES = {
  size: 10,
  minLiquidity: "C",
  riskAdjusted: { states: ["READY", "SETUP"], light: null, maxGapRisk: 80, rankBy: "opp_score_per_atr_pct" },
  swing: { states: ["READY"], light: "firing", maxGapRisk: null, rankBy: "entry_q" },
} as const;

/**
 * A setup's price levels (SCORING.md): the structural stop sits below the pullback low (the lowest
 * low of the last WINDOWS.reclaimLookback bars, less a buffer) when the name is in a pullback and
 * that stop lies between the min and max risk under the close; otherwise `stopAtr` ATR under it.
 * Targets at each R multiple of the risk (close minus stop). The entry window comes from the
 * trigger's pivot: a pullback's band around EMA21 on the trigger's bar (STATE.pullbackLowAtr ..
 * pullbackHighAtr ATR), or a breakout's pivot (the prior 20-day high) up to `pivotAboveAtr` ATR
 * above it; a SETUP's window is the pivot it must clear. Never below the stop.
 */
export const SETUP = {
  stopAtr: 1.5,
  pullbackBufferAtr: 0.1,
  pullbackMinRiskAtr: 0.5,
  pullbackMaxRiskAtr: 3,
  targetsR: [2, 3],
  pivotAboveAtr: 1,
} as const;

/**
 * The permission ladder per verdict (SCORING.md): how far down the ranking the green extends.
 * Sectors: none, those whose ETF is above its 50-day average, or the top REGIME.selectiveTopSectors
 * by REGIME.sectorRsWindow-day return. The crypto book's one sector is Crypto.
 */
export const LADDER = {
  RISK_OFF: { index: false, sectors: "none", names: "none" },
  INDEX_ONLY: { index: true, sectors: "none", names: "none" },
  SECTORS_ON: { index: true, sectors: "above_sma50", names: "none" },
  SELECTIVE: { index: true, sectors: "top_by_rs", names: "leaders_in_top_sectors" },
  NAMES_ON: { index: true, sectors: "above_sma50", names: "green_sectors" },
} as const;

/** The crypto book's sectors when its verdict opens sectors. */
export const CRYPTO_SECTORS = ["Crypto"] as const;

/**
 * Conviction (0-100): 100 x the weighted sum of opp_score/100, entry_q/100, hold_q/100, the entry
 * state's value and leadership (weights sum to 1). A name no book's ladder permits is capped at
 * `unpermittedMax`, below MEDIUM. Labels: the lowest score of each, best first.
 */
export const CONVICTION = {
  weights: { opportunity: 0.35, entry: 0.2, hold: 0.15, state: 0.2, leader: 0.1 },
  state: { READY: 1, SETUP: 0.6, WAIT: 0.3, CHASE: 0.2, FALLING: 0 },
  unpermittedMax: 49,
  labels: [
    { min: 70, label: "HIGH" },
    { min: 50, label: "MEDIUM" },
    { min: 30, label: "LOW" },
    { min: 0, label: "NONE" },
  ],
} as const;
