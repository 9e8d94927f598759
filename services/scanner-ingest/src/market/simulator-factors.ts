// Shared paths of the simulator: the market regime and factor, sector factors and the crypto factor,
// on the timeline (simulator-timeline.ts); each name loads on them (simulator-paths.ts).

import type { SectorOrIndex } from "@board/proto";
import { hashString, mix, Rng, TAG_CRYPTO, TAG_INIT, TAG_MARKET, TAG_REGIME, TAG_SECTOR, unit } from "./simulator-random.js";
import { BEAR, BULL, CHOP, CRYPTO, LOGVOL_INNOV, LOGVOL_PHI, LOGVOL_SD, REGIME_LEAVE, REGIME_MU, REGIME_NEXT, REGIME_VOL, SECTOR_DRIFT_PHI, SECTOR_DRIFT_SD, SECTOR_PARAMS } from "./simulator-model.js";
import type { Timeline } from "./simulator-timeline.js";

export class Factors {
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
