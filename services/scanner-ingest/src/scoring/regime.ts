// The regime verdict of a book and its permission ladder (SCORING.md), with hysteresis.
//
// Stateless: everything comes from the bar history. The raw rule verdict is evaluated on each of
// the last REGIME.window completed daily closes, then a state machine runs forward over that
// series: the confirmed verdict starts as the first raw one and changes only when
// REGIME.confirmCloses consecutive closes agree on a new one. The line the rule reads against a
// moving average has a band (equity: +/-1% around the 200-day; crypto: +/-2% around the 50-day): a
// close inside the band keeps the side the previous close was on. `since` is the date the
// confirmed verdict took effect (the window's first date if it never changed); `pending` is the raw
// verdict of the latest bar when it differs from the confirmed one. Intraday, today's partial bar
// only ever shows as pending: the confirmed verdict comes from completed closes.

import { STANCE_OF, type PermissionLadder, type RegimeVerdict, type RegimeVerdictCode, type SectorLabel } from "@board/proto";
import { CRYPTO_SECOND, type BookDef } from "./books.js";
import { CRYPTO_SECTORS, LADDER, REGIME } from "./weights.js";

/** A sector as the ladder sees it: its ETF above its 50-day average, and its 63-day return. */
export type SectorRead = { label: SectorLabel; aboveSma50: boolean; r63: number };

const STRENGTH: Record<RegimeVerdictCode, number> = {
  RISK_OFF: 0,
  INDEX_ONLY: 1,
  SECTORS_ON: 2,
  SELECTIVE: 3,
  NAMES_ON: 4,
};

/** The weaker of two verdicts. */
export function capVerdict(v: RegimeVerdictCode, cap: RegimeVerdictCode): RegimeVerdictCode {
  return STRENGTH[v] <= STRENGTH[cap] ? v : cap;
}

// ---------------------------------------------------------------------------------------------
// Hysteresis

export type Side = "above" | "below";

/**
 * Which side of `avg` a close is on, with a band of `band` (0.01 = 1%) either side: above beyond
 * avg (1 + band), below under avg (1 - band), and inside the band the previous side holds. With no
 * previous side, the plain comparison (a close at the average counts as above).
 */
export function bandedSide(close: number, avg: number, band: number, prev: Side | null): Side {
  if (close > avg * (1 + band)) return "above";
  if (close < avg * (1 - band)) return "below";
  if (prev !== null) return prev;
  return close >= avg ? "above" : "below";
}

/** bandedSide along a series of closes, each close starting from the side of the one before. */
export function bandedSides(bars: readonly { close: number; avg: number }[], band: number): Side[] {
  const out: Side[] = [];
  let prev: Side | null = null;
  for (const b of bars) out.push((prev = bandedSide(b.close, b.avg, band, prev)));
  return out;
}

/**
 * The hysteresis state machine over raw per-close values, oldest first: the confirmed value starts
 * as the first raw value and changes only when `closes` consecutive raw values agree on a new one.
 * Returns the confirmed value after each close.
 */
export function confirmForward<T>(raw: readonly T[], closes: number = REGIME.confirmCloses): T[] {
  const out: T[] = [];
  let state: T | undefined;
  let run = 0;
  raw.forEach((r, i) => {
    run = i > 0 && raw[i - 1] === r ? run + 1 : 1;
    if (i === 0 || (r !== state && run >= closes)) state = r;
    out.push(state as T);
  });
  return out;
}

/** The date the last value of `values` took effect: the first date of its final run. */
export function sinceOf<T>(values: readonly T[], dates: readonly string[]): string {
  if (values.length === 0 || values.length !== dates.length) throw new Error("regime: sinceOf needs one date per value");
  let i = values.length - 1;
  while (i > 0 && values[i - 1] === values[i]) i--;
  return dates[i]!;
}

/** A confirmed value, the date it took effect, and the latest raw value if it differs. */
export type Track<T> = { value: T; since: string; pending: T | null };

// ---------------------------------------------------------------------------------------------
// Equity books

/** One close of a book's index as the equity rules read it, with the book's breadth on that date. */
export type EquityBar = {
  date: string;
  close: number;
  sma50: number;
  sma200: number;
  /** SMA200 `sma200Slope` (20) bars earlier: is the 200-day rising? */
  sma200Past: number;
  /** Percent of the book's members above their 50-day / 200-day average on that date. */
  breadth50: number;
  breadth200: number;
  /** Macro: HYG/IEF above its 50-day average; null for a book without the credit check. */
  creditOk: boolean | null;
};

export type IndexRead = Pick<EquityBar, "close" | "sma50" | "sma200" | "sma200Past">;

/**
 * The equity rules on one close, given whether the index counts as above its 200-day average
 * (after the band). `creditOk` false caps the verdict at SECTORS_ON.
 */
export function equityRule(bar: Omit<EquityBar, "date">, above200: boolean): RegimeVerdictCode {
  let v: RegimeVerdictCode;
  if (!above200) v = "RISK_OFF";
  else if (bar.breadth50 < REGIME.indexOnlyBelowB50) v = "INDEX_ONLY";
  else if (bar.breadth50 < REGIME.sectorsOnBelowB50) v = "SECTORS_ON";
  else if (
    bar.close > bar.sma50 &&
    bar.sma50 > bar.sma200 &&
    bar.sma200 > bar.sma200Past &&
    bar.breadth50 >= REGIME.namesOnMinB50 &&
    bar.breadth200 >= REGIME.namesOnMinB200
  )
    v = "NAMES_ON";
  else v = "SELECTIVE";
  return bar.creditOk === false ? capVerdict(v, "SECTORS_ON") : v;
}

/** The equity rules on a single close with no band: below the 200-day average is RISK_OFF. */
export function equityVerdict(index: IndexRead, breadth50: number, breadth200: number, creditOk: boolean | null): RegimeVerdictCode {
  return equityRule({ ...index, breadth50, breadth200, creditOk }, index.close >= index.sma200);
}

/** The equity verdict with hysteresis over `closes` (completed, oldest first) and today's `partial`. */
export function equityTrack(closes: readonly EquityBar[], partial: EquityBar | null): Track<RegimeVerdictCode> & { latestSide: Side } {
  if (closes.length === 0) {
    if (partial === null) throw new Error("regime: no closes to read");
    return equityTrack([partial], null);
  }
  const sides = bandedSides(
    closes.map((c) => ({ close: c.close, avg: c.sma200 })),
    REGIME.band200,
  );
  const raw = closes.map((c, i) => equityRule(c, sides[i] === "above"));
  const confirmed = confirmForward(raw);
  const value = confirmed[confirmed.length - 1]!;
  let latestSide = sides[sides.length - 1]!;
  let latestRaw = raw[raw.length - 1]!;
  if (partial !== null) {
    latestSide = bandedSide(partial.close, partial.sma200, REGIME.band200, latestSide);
    latestRaw = equityRule(partial, latestSide === "above");
  }
  return {
    value,
    since: sinceOf(
      confirmed,
      closes.map((c) => c.date),
    ),
    pending: latestRaw === value ? null : latestRaw,
    latestSide,
  };
}

// ---------------------------------------------------------------------------------------------
// Crypto book

/** One UTC daily close of a crypto asset and its 50-day average. */
export type TrendBar = { date: string; close: number; sma50: number };

export type TrendState = "on" | "off";

/** A crypto asset's trend: on/off with the band and hysteresis, and the confirmed state per close. */
export type TrendRead = Track<TrendState> & {
  /** The confirmed state after each of the closes given (oldest first), with their dates. */
  track: TrendState[];
  dates: string[];
  /** The raw (banded) state of the latest bar: the partial one intraday. */
  latestRaw: TrendState;
};

/** Trend on/off vs the 50-day average (band REGIME.cryptoBand) with hysteresis, over completed closes. */
export function trendOf(closes: readonly TrendBar[], partial: TrendBar | null, band: number = REGIME.cryptoBand): TrendRead {
  if (closes.length === 0) {
    if (partial === null) throw new Error("regime: no closes to read");
    return trendOf([partial], null, band);
  }
  const sides = bandedSides(
    closes.map((c) => ({ close: c.close, avg: c.sma50 })),
    band,
  );
  const raw = sides.map((s): TrendState => (s === "above" ? "on" : "off"));
  const track = confirmForward(raw);
  const dates = closes.map((c) => c.date);
  const value = track[track.length - 1]!;
  let latestRaw = raw[raw.length - 1]!;
  if (partial !== null) latestRaw = bandedSide(partial.close, partial.sma50, band, sides[sides.length - 1]!) === "above" ? "on" : "off";
  return { value, since: sinceOf(track, dates), pending: latestRaw === value ? null : latestRaw, track, dates, latestRaw };
}

/** Crypto book: BTC off -> RISK_OFF; BTC on and ETH off -> INDEX_ONLY; both on -> NAMES_ON. */
export function cryptoRule(btcOn: boolean, ethOn: boolean): RegimeVerdictCode {
  if (!btcOn) return "RISK_OFF";
  return ethOn ? "NAMES_ON" : "INDEX_ONLY";
}

/** The crypto rule on a single close with no band: below the 50-day average is off. */
export function cryptoVerdict(btc: Pick<TrendBar, "close" | "sma50">, eth: Pick<TrendBar, "close" | "sma50">): RegimeVerdictCode {
  return cryptoRule(btc.close >= btc.sma50, eth.close >= eth.sma50);
}

/**
 * The crypto verdict from the two confirmed trends, close by close (ETH read on BTC's dates), so it
 * always agrees with the per-asset trends the crypto signal shows.
 */
export function cryptoTrack(btc: TrendRead, eth: TrendRead): Track<RegimeVerdictCode> {
  const ethOn = new Map(eth.dates.map((d, i) => [d, eth.track[i]!]));
  const dates: string[] = [];
  const verdicts: RegimeVerdictCode[] = [];
  btc.dates.forEach((d, i) => {
    const e = ethOn.get(d);
    if (e === undefined) return;
    dates.push(d);
    verdicts.push(cryptoRule(btc.track[i] === "on", e === "on"));
  });
  const value = cryptoRule(btc.value === "on", eth.value === "on");
  if (verdicts.length === 0) {
    dates.push(btc.since);
    verdicts.push(value);
  }
  const latestRaw = cryptoRule(btc.latestRaw === "on", eth.latestRaw === "on");
  return { value, since: sinceOf(verdicts, dates), pending: latestRaw === value ? null : latestRaw };
}

// ---------------------------------------------------------------------------------------------
// The published verdict

/** How far down the ranking the green extends under a verdict (the rungs of LADDER). */
export function ladderOf(verdict: RegimeVerdictCode, rules: BookDef["rules"], sectors: readonly SectorRead[]): PermissionLadder {
  const rung = LADDER[verdict];
  let green: SectorLabel[];
  switch (rung.sectors) {
    case "none":
      green = [];
      break;
    case "top_by_rs":
      green = [...sectors]
        .sort((a, b) => b.r63 - a.r63)
        .slice(0, REGIME.selectiveTopSectors)
        .map((s) => s.label);
      break;
    case "above_sma50":
      green = rules === "crypto" ? [...CRYPTO_SECTORS] : sectors.filter((s) => s.aboveSma50).map((s) => s.label);
      break;
  }
  return { index: rung.index, sectors: green, names: rung.names };
}

const PHRASE: Record<RegimeVerdictCode, string> = {
  NAMES_ON: "risk on, names in green sectors",
  SELECTIVE: "be selective, leaders in the top sectors only",
  SECTORS_ON: "be selective, sector ETFs only",
  INDEX_ONLY: "stand down on names, the index only",
  RISK_OFF: "stand down",
};

const sideWord = (close: number, avg: number) => (close >= avg ? "above" : "below");
const pct1 = (x: number) => Math.round(x * 10) / 10;

/** The distance of a close from an average as a signed percent for lines: +2.3%, -0.4%. */
export function distanceText(close: number, avg: number): string {
  const d = Math.round((close / avg - 1) * 1000) / 10;
  return `${d >= 0 ? "+" : ""}${d.toFixed(1)}%`;
}

function tail<T extends string>(t: Track<T>): string {
  const pending = t.pending === null ? "" : ` Pending ${t.pending}: ${REGIME.confirmCloses} closes in a row confirm a change.`;
  return ` Since ${t.since}.${pending}`;
}

/** The index's latest read for the verdict's display fields. */
export type IndexNow = { close: number; sma50: number; sma200: number };

function assemble(
  book: BookDef,
  track: Track<RegimeVerdictCode>,
  line: string,
  index: IndexNow,
  breadth50: number,
  breadth200: number,
  sectors: readonly SectorRead[],
): RegimeVerdict {
  return {
    verdict: track.value,
    stance: STANCE_OF[track.value],
    line,
    since: track.since,
    pending: track.pending,
    index_sym: book.index,
    index_above_sma50: index.close > index.sma50,
    index_above_sma200: index.close > index.sma200,
    breadth_50: pct1(breadth50),
    breadth_200: pct1(breadth200),
    ladder: ladderOf(track.value, book.rules, sectors),
  };
}

export type EquityRegimeInput = {
  book: BookDef;
  /** The book index's last completed closes (up to REGIME.window), oldest first, with breadth and credit. */
  closes: readonly EquityBar[];
  /** Today's partial bar when the scan is intraday, else null. */
  partial: EquityBar | null;
  sectors: readonly SectorRead[];
};

export function equityRegime(input: EquityRegimeInput): RegimeVerdict {
  const { book, closes, partial } = input;
  const track = equityTrack(closes, partial);
  const latest = partial ?? closes[closes.length - 1]!;
  const inBand = Math.abs(latest.close / latest.sma200 - 1) <= REGIME.band200;
  const band = inBand ? ` (inside the ${REGIME.band200 * 100}% band, read as ${track.latestSide})` : "";
  const credit = latest.creditOk === false ? " (credit weak: HYG/IEF below its 50-day average caps the verdict at SECTORS_ON)" : "";
  const line =
    `${book.index} ${sideWord(latest.close, latest.sma200)} its 200-day average${band}, ` +
    `${Math.round(latest.breadth50)}% of members above their 50-day: ${PHRASE[track.value]}${credit}.${tail(track)}`;
  return assemble(book, track, line, latest, latest.breadth50, latest.breadth200, input.sectors);
}

export type CryptoRegimeInput = {
  book: BookDef;
  btc: TrendRead;
  eth: TrendRead;
  /** BTC's latest read (the partial bar intraday) for the display fields. */
  index: IndexNow;
  breadth50: number;
  breadth200: number;
  sectors: readonly SectorRead[];
};

export function cryptoRegime(input: CryptoRegimeInput): RegimeVerdict {
  const { book, btc, eth } = input;
  const track = cryptoTrack(btc, eth);
  const line =
    `${book.index} trend ${btc.value}, ${CRYPTO_SECOND} trend ${eth.value} ` +
    `(UTC daily close vs the 50-day average, ${REGIME.cryptoBand * 100}% band): ${PHRASE[track.value]}.${tail(track)}`;
  return assemble(book, track, line, input.index, input.breadth50, input.breadth200, input.sectors);
}
