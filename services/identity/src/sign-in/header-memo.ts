/**
 * Verified SIWX headers, so a session (one header replayed on every free read for 10
 * minutes) costs one signature check. Only successes are stored, each until its own
 * expiry; the size is bounded so a flood of valid sessions cannot grow it without end.
 */
export class HeaderMemo<T extends { expiresAt: Date }> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly maxEntries: number) {}

  get size(): number {
    return this.entries.size;
  }

  /** The remembered value, unless it has expired (then it is dropped). */
  get(key: string, now: Date): T | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt.getTime() <= now.getTime()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, value: T, now: Date): void {
    if (this.entries.size >= this.maxEntries) this.makeRoom(now);
    this.entries.set(key, value);
  }

  private makeRoom(now: Date): void {
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt.getTime() <= now.getTime()) this.entries.delete(key);
    }
    // Still full: drop the oldest tenth (Map keeps insertion order), so the sweep above runs
    // once per many inserts; a dropped session only costs one more signature check.
    const target = this.maxEntries - Math.max(1, Math.floor(this.maxEntries / 10));
    for (const key of this.entries.keys()) {
      if (this.entries.size <= target) break;
      this.entries.delete(key);
    }
  }
}
