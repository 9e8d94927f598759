// The simulator's hashing and random numbers: every draw comes from a hash of (seed, stream, day),
// so a bar never depends on which bars were asked for first (simulator.ts).

export function mix(h: number, v: number): number {
  h = Math.imul(h ^ v, 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix(h >>> 0, s.length);
}

/** Uniform in (0, 1) from a 32-bit hash. */
export function unit(h: number): number {
  return (h + 0.5) / 4294967296;
}

export const TAG_REGIME = hashString("regime");
export const TAG_MARKET = hashString("market");
export const TAG_CRYPTO = hashString("crypto");
export const TAG_SECTOR = hashString("sector");
export const TAG_NAME = hashString("name");
export const TAG_INIT = hashString("init");
export const TAG_WIGGLE = hashString("wiggle");

/** mulberry32, re-seeded per (stream, day): cheap, and good enough for simulated prices. */
export class Rng {
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
