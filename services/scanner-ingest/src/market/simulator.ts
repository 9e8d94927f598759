// A deterministic, seeded market simulator: daily bars for every name of the universe, built from a
// market factor (with a slowly switching bull / chop / bear regime), a sector factor, a crypto
// factor and idiosyncratic noise with fat tails, overnight gaps and volume that rises on big moves.
//
// Determinism: every day's shocks come from a hash of (seed, stream, epoch day), and every path is
// accumulated from one fixed origin date, so a bar depends only on (seed, origin, symbol, date),
// never on which dates were asked for first. A name keeps only checkpoints of its path and replays
// bars from them (simulator-paths.ts).
//
// Levels (start price, dollar volume, a stock's volatility) are drawn per kind of name from
// plausible ranges, seeded: see simulator-levels.ts. Every figure is simulated, none is real.
//
// This file is the market data provider over the pieces beside it: the hashing and random numbers
// (simulator-random.ts), the model's parameters (simulator-model.ts), the calendar of days
// (simulator-timeline.ts) and the shared market, sector and crypto factors (simulator-factors.ts).

import { sessionAt } from "@board/market-calendar";
import type { ProviderInfo } from "@board/proto";
import type { UniverseEntry } from "../universe.js";
import { toEpochDay, utcDateOf, utcDayFraction } from "./days.js";
import type { Bar, MarketDataProvider } from "./provider.js";
import { Factors } from "./simulator-factors.js";
import { paramsOf, type NameParams } from "./simulator-levels.js";
import { CHOP, GAP_NOISE, JUMP_SD, REGIME_VOL } from "./simulator-model.js";
import { CHECKPOINT_EVERY, Series } from "./simulator-paths.js";
import { mix, Rng, TAG_WIGGLE } from "./simulator-random.js";
import { Timeline } from "./simulator-timeline.js";

// The kinds and levels names draw from, where importers have always found them.
export { KIND_LEVELS, levelsOf, MEGA_CAPS, simKindOf, SYMBOL_LEVELS, type SimKind } from "./simulator-levels.js";

export const DEFAULT_SEED = 42;
/** First simulated day. Fixed, so a date's bars never change as time moves on. */
export const DEFAULT_ORIGIN = "2024-01-02";

export type SimulatorOptions = { origin?: string };

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
