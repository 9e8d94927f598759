import type { NameParams } from "./simulator-levels.js";
import { hashString, mix, Rng, TAG_INIT, TAG_NAME } from "./simulator-random.js";
import { DRIFT_INNOV, LOGVOL_INNOV, LOGVOL_PHI, LOGVOL_SD, NAME_DRIFT_PHI, RANGE, REVERSION, VOLUME_MOVE, VOLUME_NOISE, VOLUME_PRICE_DAMP } from "./simulator-model.js";

// Per-name paths
//
// A name keeps no bars: only the state of its path (drift, log volatility, last close) before every
// CHECKPOINT_EVERY-th bar. A read replays the bars it wants from the nearest saved state before
// them; a day's draws come from its own hash, so the replay gives the same bars to the last bit.
// Memory stays at a few hundred bytes a name however long the history grows (bars held as arrays
// were ~22 MB for the universe's two years); a scan's read of 340 bars replays at most 31 more.

/** Bars between two saved states of a path: a read computes at most this many - 1 bars it does not return. */
export const CHECKPOINT_EVERY = 32;

/** Where a name's path stands, and the last bar it made. */
export class PathState {
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

export class Series {
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
