// A Map with a size cap. Per-date results are cached so hot paths (one freshness block per read)
// skip luxon entirely; the cap keeps a long back-fill scan from growing memory without bound.

export class BoundedCache<K, V> {
  readonly #map = new Map<K, V>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  set(key: K, value: V): V {
    if (this.#map.size >= this.#max && !this.#map.has(key)) {
      // Maps iterate in insertion order, so the first key is the oldest entry.
      const oldest = this.#map.keys().next();
      if (!oldest.done) this.#map.delete(oldest.value);
    }
    this.#map.set(key, value);
    return value;
  }
}
