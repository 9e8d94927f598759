import type { PublishedView } from "../publication.js";

/** Bytes of rendered history reads kept (identity prefix and gzip head of each). */
export const READ_CACHE_BYTES = 16 * 1024 * 1024;

const sizeOf = (v: PublishedView) => v.rendered.prefix.length + v.rendered.gzip.head.length;

/**
 * History reads already made, by the board they are cut at and their parameters. A read cut at
 * a committed board is the same until the next board (every table is read up to that board's
 * seq), so it is made once per board and parameters and then served like a published view;
 * concurrent reads of the same wait for the one in flight. Refusals are not kept. Least recently
 * read goes first past READ_CACHE_BYTES.
 */
export class HistoryReadCache {
  private readonly made = new Map<string, PublishedView>();
  private readonly inFlight = new Map<string, Promise<PublishedView>>();
  private bytes = 0;

  constructor(private readonly maxBytes = READ_CACHE_BYTES) {}

  /** The board a read is cut at (its snapshot hash), the view and its parameters as given. */
  static key(snapshotHash: string, view: string, params: Record<string, string>): string {
    const named = Object.keys(params)
      .sort()
      .map((k) => `${k}=${params[k]}`);
    return [snapshotHash, view, ...named].join("\n");
  }

  async get(key: string, make: () => Promise<PublishedView>): Promise<PublishedView> {
    const kept = this.made.get(key);
    if (kept) {
      this.made.delete(key);
      this.made.set(key, kept);
      return kept;
    }
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const making = make().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, making);
    const view = await making;
    this.keep(key, view);
    return view;
  }

  /** Reads kept and their bytes (for tests and metrics). */
  get size(): { reads: number; bytes: number } {
    return { reads: this.made.size, bytes: this.bytes };
  }

  private keep(key: string, view: PublishedView): void {
    const size = sizeOf(view);
    if (size > this.maxBytes || this.made.has(key)) return;
    this.made.set(key, view);
    this.bytes += size;
    for (const [k, v] of this.made) {
      if (this.bytes <= this.maxBytes) break;
      this.made.delete(k);
      this.bytes -= sizeOf(v);
    }
  }
}
